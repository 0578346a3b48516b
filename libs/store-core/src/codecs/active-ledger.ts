import { InvariantViolationError } from '../errors/domain-errors';
import { ByteReader } from './byte-reader';
import { ByteWriter } from './byte-writer';
import { MAX_LEDGER_ITEMS } from './codec-limits';
import { isArrayValue } from './fields';

/** One day bucket of the retention active ledger. */
export interface LedgerItem {
  /** Days since the Unix epoch (u32): `floor(createdAt / DAY_MS)`. */
  readonly day: number;
  /** Highest mailbox seq registered for a live entry of this day (u64). */
  readonly maxSeq: bigint;
  /** Absolute expiry shared by every entry of this day (ms, u64). */
  readonly expiresAt: bigint;
}

/**
 * Retention active-ledger codec (seed format, fixed exactly):
 * ```
 * "QRL" 0x01
 * count u16 (0…MAX_LEDGER_ITEMS = 32)
 * count × (day u32, maxSeq u64, expiresAt u64)   strictly ascending day
 * ```
 * Exact length (6 + 20 × count bytes). More than 32 items → OUT_OF_RANGE on decode and
 * `InvariantViolationError` on encode; days not strictly ascending → NOT_CANONICAL / `InvalidInputError`.
 *
 * Tail compatibility: none within v1 — this blob is compared whole in the meta LWT, so any change is
 * a new version byte (with its own exact length) that v1 decoders refuse (fail closed); a v2 decoder
 * must still accept v1.
 */
const CODEC = 'active-ledger';
const MAGIC = 'QRL';
const VERSION = 1;
const ITEM_BYTES = 4 + 8 + 8;

export function encodeActiveLedger(items: readonly LedgerItem[]): Buffer {
  const w = new ByteWriter(CODEC).header(MAGIC, VERSION);
  if (!isArrayValue(items)) throw w.invalid('ledger', 'must be an array');
  if (items.length > MAX_LEDGER_ITEMS) throw new InvariantViolationError(`${CODEC}: ${items.length} items, more than ${MAX_LEDGER_ITEMS}`);
  w.u16(items.length, 'count');
  items.forEach((item, i) => {
    w.u32(item.day, 'day').u64(item.maxSeq, 'maxSeq').u64(item.expiresAt, 'expiresAt');
    const prev = items[i - 1];
    if (prev !== undefined && prev.day >= item.day) throw w.invalid('ledger', 'days must be strictly ascending');
  });
  return w.finish();
}

export function decodeActiveLedger(b: Uint8Array): LedgerItem[] {
  const r = new ByteReader(CODEC, b);
  r.header(MAGIC, [VERSION]);
  const count = r.u16('count');
  if (count > MAX_LEDGER_ITEMS) r.fail('OUT_OF_RANGE', `${count} items, more than ${MAX_LEDGER_ITEMS}`);
  r.needItems(count, ITEM_BYTES, 'items');
  const items: LedgerItem[] = [];
  for (let i = 0; i < count; i++) {
    const day = r.u32('day');
    const prev = items[i - 1];
    if (prev !== undefined && prev.day >= day) r.fail('NOT_CANONICAL', 'days not strictly ascending');
    items.push({ day, maxSeq: r.u64('maxSeq'), expiresAt: r.u64('expiresAt') });
  }
  r.end();
  return items;
}
