import { CorruptEntryError, StoreError } from '@qim/store-core';

/**
 * Decodes bytes read from storage. Whatever the codec refuses (`CodecError`, or any other domain
 * error such as an id of the wrong length) is damage to stored data: `CorruptEntryError` with the
 * codec's error as `cause`. Fails closed; the caller never skips it.
 */
export function decodeStored<T>(what: string, decode: () => T): T {
  try {
    return decode();
  } catch (e) {
    if (e instanceof StoreError) throw new CorruptEntryError(`stored ${what} is undecodable: ${e.message}`, { cause: e });
    throw e;
  }
}
