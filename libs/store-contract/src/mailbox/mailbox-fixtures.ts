import { DAY_MS, composeMailboxSeq, dayOf, epochStartSeq } from '@qim/store-core';
import type { Id128, MailboxEntryInput, MailboxEvent, MailboxGcConfig, MailboxStore, ShardEpoch } from '@qim/store-core';
import type { MailboxFaults, MailboxHarnessFactory, MailboxStoreHarness } from '../harness';
import { randomId, randomInt } from '../support/ids';
import { TimeControl } from '../support/time-control';

/** Entry retention used when a case does not care (7 days). */
export const WEEK_MS = 7n * DAY_MS;
/** The production dispatch dedupe window (8 days, ADR-0022 §4): the default on a manual clock. */
export const DEDUPE_MS = 8n * DAY_MS;
/** The dedupe window on real time: long enough that no case outlives it unless it asks to. */
export const REAL_DEDUPE_MS = 600_000n;

/** A per-case harness with a fresh shard, epoch and tenant (so backends may share storage between cases). */
export interface MailboxContext {
  readonly harness: MailboxStoreHarness;
  readonly time: TimeControl;
  readonly tenantId: Id128;
  readonly shardEpoch: ShardEpoch;
  /**
   * Opens a store of this case's shard (and `epoch`, default the case's) with `gc` (default: week
   * retention, `dedupeMs`) and, when given, simulated crash points and a clock lag (`MailboxStoreHarness.open`).
   */
  open(gc?: Partial<MailboxGcConfig>, epoch?: number, faults?: MailboxFaults, clockLagMs?: bigint): Promise<MailboxStore>;
  /** The dedupe window used by `open` unless overridden: `DEDUPE_MS` on a manual clock, `REAL_DEDUPE_MS` on real time. */
  readonly dedupeMs: bigint;
}

/** Opening and closing a harness talks to a real server; on a loaded 2-core machine that can exceed Jest's 5 s hook default. */
const HOOK_TIMEOUT_MS = 60_000;

/** Registers `beforeEach`/`afterEach` that open and close a harness; returns the current context. */
export function useMailboxContext(factory: MailboxHarnessFactory): () => MailboxContext {
  let current: MailboxContext | null = null;
  beforeEach(async () => {
    const harness = await factory();
    const time = new TimeControl(harness.clock);
    const shardEpoch = { shard: randomInt(0, 65_535), epoch: randomInt(1, 60_000) };
    const dedupeMs = time.manual ? DEDUPE_MS : REAL_DEDUPE_MS;
    current = {
      harness,
      time,
      tenantId: randomId(),
      shardEpoch,
      dedupeMs,
      open: (gc = {}, epoch = shardEpoch.epoch, faults, clockLagMs) =>
        harness.open(
          { shard: shardEpoch.shard, epoch },
          { entryRetentionMs: gc.entryRetentionMs ?? WEEK_MS, dispatchDedupeMs: gc.dispatchDedupeMs ?? dedupeMs },
          faults,
          clockLagMs,
        ),
    };
  }, HOOK_TIMEOUT_MS);
  afterEach(async () => {
    const c = current;
    current = null;
    if (c !== null) await c.harness.close();
  }, HOOK_TIMEOUT_MS);
  return () => {
    if (current === null) throw new Error('mailbox contract context used outside a case');
    return current;
  };
}

/** An event with a fresh id and a small payload naming it. */
export function event(ordinal: number, payload = `payload-${ordinal}`): MailboxEvent {
  return { ordinal, eventId: randomId(), payload: Buffer.from(payload, 'utf8') };
}

/** An entry input of one user at `seq`. */
export function entryInput(tenantId: Id128, userId: Id128, seq: bigint, createdAt: bigint, events: readonly MailboxEvent[] = [event(0)]): MailboxEntryInput {
  return { tenantId, userId, mailboxSeq: seq, createdAt, events };
}

/** The seq of `offset` in the store's epoch. */
export function seqAt(store: MailboxStore, offset: bigint): bigint {
  return composeMailboxSeq(store.shardEpoch.epoch, offset);
}

/** The start-of-epoch cursor of the store. */
export function startOf(store: MailboxStore): bigint {
  return epochStartSeq(store.shardEpoch.epoch);
}

/** The top of the store's epoch (a cursor above every entry of it). */
export function topOf(store: MailboxStore): bigint {
  return composeMailboxSeq(store.shardEpoch.epoch, (1n << 47n) - 2n);
}

/**
 * A retention whose day-before-today bucket expires at about `inMs` from now: entries created
 * yesterday then expire soon, entries created today live for about a day more.
 */
export function retentionExpiringYesterdayIn(nowMs: bigint, inMs: bigint): { retentionMs: bigint; yesterday: bigint; today: bigint } {
  const todayStart = BigInt(dayOf(nowMs)) * DAY_MS;
  return { retentionMs: nowMs + inMs - todayStart, yesterday: todayStart - DAY_MS + 1_000n, today: nowMs };
}
