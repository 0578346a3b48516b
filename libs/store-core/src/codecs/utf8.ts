/**
 * The one UTF-8 decoder of the codecs: `fatal` refuses malformed input, `ignoreBOM` keeps a leading
 * U+FEFF as text (the default would strip it and break `encode(decode(b)) === b`).
 */
export const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
