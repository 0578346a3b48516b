/**
 * The Redis Cluster hash tag of a key: the text between the first `{` and the next `}` when it is
 * non-empty, else the whole key (the slot is CRC16 of this text).
 */
export function hashTagOf(key: string): string {
  const open = key.indexOf('{');
  if (open < 0) return key;
  const close = key.indexOf('}', open + 1);
  if (close < 0 || close === open + 1) return key;
  return key.slice(open + 1, close);
}
