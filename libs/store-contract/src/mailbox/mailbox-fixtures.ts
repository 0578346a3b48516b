import { DAY_MS, buildManifest, composeMailboxSeq, dayOf, epochStartSeq, laneOf, manifestDigest } from '@qim/store-core';
import type { DispatchManifest, Id128, MailboxEntryInput, MailboxEvent, MailboxGcConfig, MailboxStore, ShardEpoch } from '@qim/store-core';
import type { MailboxHarnessFactory, MailboxStoreHarness } from '../harness';
import { randomId, randomInt } from '../support/ids';
import { TimeControl } from '../support/time-control';

/** Entry retention used when a case does not care (7 days). */
export const WEEK_MS = 7n * DAY_MS;

/** A per-case harness with a fresh shard, epoch and tenant (so backends may share storage between cases). */
export interface MailboxContext {
  readonly harness: MailboxStoreHarness;
  readonly time: TimeControl;
  readonly tenantId: Id128;
  readonly shardEpoch: ShardEpoch;
  /** Opens a store of this case's shard (and `epoch`, default the case's) with `gc` (default: week retention, short GC delay). */
  open(gc?: Partial<MailboxGcConfig>, epoch?: number): Promise<MailboxStore>;
  /** The GC delay used by `open` unless overridden: 60 s on a manual clock, 2 s on real time. */
  readonly gcDelayMs: bigint;
}

/** Registers `beforeEach`/`afterEach` that open and close a harness; returns the current context. */
export function useMailboxContext(factory: MailboxHarnessFactory): () => MailboxContext {
  let current: MailboxContext | null = null;
  beforeEach(async () => {
    const harness = await factory();
    const time = new TimeControl(harness.clock);
    const shardEpoch = { shard: randomInt(0, 65_535), epoch: randomInt(1, 60_000) };
    const gcDelayMs = time.manual ? 60_000n : 2_000n;
    current = {
      harness,
      time,
      tenantId: randomId(),
      shardEpoch,
      gcDelayMs,
      open: (gc = {}, epoch = shardEpoch.epoch) =>
        harness.open({ shard: shardEpoch.shard, epoch }, { entryRetentionMs: gc.entryRetentionMs ?? WEEK_MS, dispatchGcDelayMs: gc.dispatchGcDelayMs ?? gcDelayMs }),
    };
  });
  afterEach(async () => {
    const c = current;
    current = null;
    if (c !== null) await c.harness.close();
  });
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

/** A manifest for `recipients` plus its digest. */
export function manifestFor(tenantId: Id128, recipients: readonly Id128[], chunkSize = 2, dispatchId: Id128 = randomId()): { manifest: DispatchManifest; digest: Buffer } {
  const manifest = buildManifest({ dispatchId, tenantId, recipients, chunkSize });
  return { manifest, digest: manifestDigest(manifest) };
}

/** `n` users of `tenantId` that all hash into one lane (returns the lane too). */
export function usersInOneLane(tenantId: Id128, n: number): { lane: number; users: Id128[] } {
  const byLane = new Map<number, Id128[]>();
  for (;;) {
    const u = randomId();
    const lane = laneOf(tenantId, u);
    const list = byLane.get(lane) ?? [];
    list.push(u);
    byLane.set(lane, list);
    if (list.length === n) return { lane, users: [...list].sort() };
  }
}

/**
 * A retention whose day-before-today bucket expires at about `inMs` from now: entries created
 * yesterday then expire soon, entries created today live for about a day more.
 */
export function retentionExpiringYesterdayIn(nowMs: bigint, inMs: bigint): { retentionMs: bigint; yesterday: bigint; today: bigint } {
  const todayStart = BigInt(dayOf(nowMs)) * DAY_MS;
  return { retentionMs: nowMs + inMs - todayStart, yesterday: todayStart - DAY_MS + 1_000n, today: nowMs };
}
