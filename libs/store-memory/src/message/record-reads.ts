import { CorruptEntryError, decodeMessageRecord } from '@qim/store-core';
import type { Clock, MessageRecord } from '@qim/store-core';
import { decodeStored } from '../storage/decode-stored';
import type { MemoryMessageBackend } from './memory-message-backend';

/** A record read behind its index row: the stored bytes and the decoded record. */
export interface RecordRead {
  readonly bytes: Buffer;
  readonly record: MessageRecord;
}

/**
 * Reads the record of an index row `(pk, seq)` of `(tenantId, conversationId)`. Missing record: if
 * the index row has meanwhile expired too, the message simply expired (ephemeral) between the two
 * reads → null; otherwise `CorruptEntryError`. Undecodable bytes or coordinates that disagree with
 * the index row → `CorruptEntryError`.
 */
export function readRecordBehindIndex(
  backend: MemoryMessageBackend,
  clock: Clock,
  pk: string,
  coords: { readonly tenantId: string; readonly conversationId: string; readonly seq: bigint },
): RecordRead | null {
  const bytes = backend.records.get(pk, coords.seq, clock.nowMs());
  if (bytes === null) {
    if (backend.historyIndex.get(pk, coords.seq, clock.nowMs()) === null) return null;
    throw new CorruptEntryError(`history index row ${pk}/${coords.seq} has no record`);
  }
  const record = decodeStored('message record', () => decodeMessageRecord(bytes));
  if (record.tenantId !== coords.tenantId || record.conversationId !== coords.conversationId || record.seq !== coords.seq) {
    throw new CorruptEntryError(`record at ${pk}/${coords.seq} carries other coordinates`);
  }
  return { bytes: Buffer.from(bytes), record };
}
