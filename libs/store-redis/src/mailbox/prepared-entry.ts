import {
  InvalidInputError,
  assertSeqInEpoch,
  assertU64,
  canonicalizeEvents,
  composeMailboxSeq,
  dayOf,
  encodeMailboxEntry,
  entryExpiry,
  id128ToBytes,
  isId128,
} from '@qim/store-core';
import type { DispatchRecord, Id128, MailboxEntry, MailboxEntryInput } from '@qim/store-core';
import { msScore, u64ToHex16 } from '../redis/hex64';
import { entryHeader } from './mailbox-script-args';

/** One validated entry, encoded, with what its user's append script needs. */
export interface PreparedEntry {
  readonly tenantId: Id128;
  readonly userId: Id128;
  /** tenant + user (64 hex): the grouping and cache key. */
  readonly user: string;
  readonly seq: bigint;
  readonly day: number;
  readonly expiresAt: bigint;
  /** The day-index member: seq (16 hex) + the MailboxEntry bytes (the script writes it as given). */
  readonly member: Buffer;
  /** `seq (16 hex) .. expiry (16 hex)`: the head of the script's entry header (see `appendEntriesCall`). */
  readonly head: string;
  /** `physical expiry ms .. ':' .. day`: the tail of the script's entry header. */
  readonly tail: string;
  /** The whole header of the entry written live, shared by a dispatch's recipients. */
  readonly liveHeader: string;
}

/** Length of the seq prefix (16 hex) of a day-index member. */
const SEQ_PREFIX = 16;

/** What every entry of one seq and creation time shares (computed once per dispatch). */
interface SharedFacts {
  readonly seq: bigint;
  readonly day: number;
  readonly expiresAt: bigint;
  readonly head: string;
  readonly tail: string;
  readonly liveHeader: string;
}

/**
 * The entry's physical expiry: its logical expiry + grace. Only live entries are written (expiry
 * after the caller's now), so this is never earlier than the server's now while the clock skew
 * stays below the grace; deterministic, so a rewrite never renews it.
 */
function sharedFacts(seq: bigint, createdAt: bigint, retentionMs: bigint, graceMs: bigint): SharedFacts {
  const expiresAt = entryExpiry(createdAt, retentionMs);
  const day = dayOf(createdAt);
  const head = `${u64ToHex16(seq, 'seq')}${u64ToHex16(expiresAt, 'expiry')}`;
  const tail = `${msScore(expiresAt + graceMs)}:${day}`;
  return { seq, day, expiresAt, head, tail, liveHeader: entryHeader(head, tail, true) };
}

/**
 * Validates one entry input against the store's epoch (canonical ids, a seq of the epoch above its
 * start, u64 `createdAt`, events without a repeated ordinal) and encodes it with its fixed absolute
 * expiry. Bad input → `InvalidInputError` / `EpochMismatchError` before anything is written.
 */
export function prepareEntry(input: MailboxEntryInput, epoch: number, retentionMs: bigint, graceMs: bigint): PreparedEntry {
  if (!isId128(input.tenantId) || !isId128(input.userId)) throw new InvalidInputError('entry ids must be canonical');
  const { offset } = assertSeqInEpoch(input.mailboxSeq, epoch);
  if (offset === null) throw new InvalidInputError('an entry cannot sit at the start-of-epoch seq');
  if (typeof input.createdAt !== 'bigint' || input.createdAt < 0n) throw new InvalidInputError('createdAt must be a u64');
  assertU64(input.createdAt, 'createdAt');
  const facts = sharedFacts(input.mailboxSeq, input.createdAt, retentionMs, graceMs);
  const entry: MailboxEntry = { ...input, events: canonicalizeEvents(input.events), expiresAt: facts.expiresAt };
  const member = Buffer.concat([Buffer.from(facts.head.slice(0, SEQ_PREFIX), 'latin1'), encodeMailboxEntry(entry)]);
  return {
    tenantId: input.tenantId,
    userId: input.userId,
    user: `${input.tenantId}${input.userId}`,
    seq: facts.seq,
    day: facts.day,
    expiresAt: facts.expiresAt,
    member,
    head: facts.head,
    tail: facts.tail,
    liveHeader: facts.liveHeader,
  };
}

/** Byte offset of the user id in a member: the seq prefix, then the MailboxEntry codec v1 ("QME" 0x01, tenantId[16], userId[16], …). */
const USER_ID_AT = SEQ_PREFIX + 20;

/**
 * The entries of one dispatch applied at `offset` (store-core `entriesOfDispatch`: every recipient,
 * the record's events, seq = `composeMailboxSeq(epoch, offset)`), prepared once per dispatch: the
 * events are canonicalised and the member (seq prefix + entry) encoded once, then each recipient's copy gets its user id
 * (the codec is exact-length and the user id sits at a fixed offset; checked on the first copy, a
 * full encode per recipient otherwise), the copies sharing one allocation. The record itself was validated by `planPage`.
 */
export function prepareDispatchEntries(record: DispatchRecord, epoch: number, offset: bigint, retentionMs: bigint, graceMs: bigint): PreparedEntry[] {
  if (record.recipients.length === 0) return [];
  const facts = sharedFacts(composeMailboxSeq(epoch, offset), record.createdAt, retentionMs, graceMs);
  const events = canonicalizeEvents(record.events);
  const entryOf = (userId: Id128): MailboxEntry => ({
    tenantId: record.tenantId,
    userId,
    mailboxSeq: facts.seq,
    createdAt: record.createdAt,
    events,
    expiresAt: facts.expiresAt,
  });
  const first = record.recipients[0]!;
  const memberOf = (userId: Id128): Buffer => Buffer.concat([Buffer.from(facts.head.slice(0, SEQ_PREFIX), 'latin1'), encodeMailboxEntry(entryOf(userId))]);
  const template = memberOf(first);
  const patchable = template.subarray(USER_ID_AT, USER_ID_AT + 16).equals(id128ToBytes(first));
  const size = template.length;
  const slab = patchable ? Buffer.allocUnsafe(size * record.recipients.length) : null;
  return record.recipients.map((userId, i) => {
    let member: Buffer;
    if (slab === null) member = memberOf(userId);
    else {
      member = slab.subarray(i * size, (i + 1) * size);
      template.copy(member);
      member.write(userId, USER_ID_AT, 16, 'hex');
    }
    return {
      tenantId: record.tenantId,
      userId,
      user: `${record.tenantId}${userId}`,
      seq: facts.seq,
      day: facts.day,
      expiresAt: facts.expiresAt,
      member,
      head: facts.head,
      tail: facts.tail,
      liveHeader: facts.liveHeader,
    };
  });
}

/** Entries grouped per user in input order; two groups for one `(user, seq)` → `InvalidInputError`. */
export function groupByUser(entries: readonly PreparedEntry[]): PreparedEntry[][] {
  const byUser = new Map<string, PreparedEntry[]>();
  for (const e of entries) {
    const group = byUser.get(e.user);
    if (group === undefined) byUser.set(e.user, [e]);
    else if (group.some((g) => g.seq === e.seq)) throw new InvalidInputError(`two groups for one (user, seq) in a batch: ${e.user} at ${e.seq}`);
    else group.push(e);
  }
  return [...byUser.values()];
}
