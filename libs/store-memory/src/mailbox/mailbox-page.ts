import { dispatchDedupeExpiry, entriesOfDispatch, planPage, resolvePage } from '@qim/store-core';
import type { DispatchPage, Id128, IndexedDispatch, PageCandidate, PageReport } from '@qim/store-core';
import { yieldTurn } from '../storage/memory-tables';
import { prepareEntries, writeEntry } from './mailbox-entries';
import type { PreparedEntry } from './mailbox-entries';
import { frontierKey, indexKey } from './memory-mailbox-backend';
import type { MailboxScope } from './mailbox-scope';
import { SimulatedCrashError } from './memory-mailbox-faults';
import type { MemoryMailboxFaults } from './memory-mailbox-faults';

/** The shard frontier of the store's epoch (null: none yet). */
export function readFrontier(s: MailboxScope): bigint | null {
  return s.backend.frontiers.get(frontierKey(s.shardEpoch.shard, s.shardEpoch.epoch), s.clock.nowMs());
}

/** Raises the frontier to `offset` (a max: a lower write never wins); returns the stored value. */
function raiseFrontier(s: MailboxScope, offset: bigint): bigint {
  const key = frontierKey(s.shardEpoch.shard, s.shardEpoch.epoch);
  const current = s.backend.frontiers.get(key, s.clock.nowMs());
  if (current === null || offset > current) s.backend.frontiers.put(key, offset, null);
  return current !== null && current > offset ? current : offset;
}

/**
 * Records a first sight: the lowest offset wins (an existing live row at or below `c.offset` stays),
 * expiring at `createdAt + dispatchDedupeMs`. A sight whose memory has already ended writes nothing.
 */
function indexFirstSight(s: MailboxScope, c: PageCandidate): void {
  const now = s.clock.nowMs();
  const expiresAt = dispatchDedupeExpiry(c.record.createdAt, s.gc.dispatchDedupeMs);
  if (expiresAt <= now) return;
  const key = indexKey(s.shardEpoch.shard, s.shardEpoch.epoch, c.record.dispatchId);
  const current = s.backend.dispatchIndex.get(key, now);
  if (current !== null && current.offset <= c.offset) return;
  s.backend.dispatchIndex.put(key, { offset: c.offset, digest: c.digest }, expiresAt);
}

function readIndex(s: MailboxScope, dispatchId: Id128): IndexedDispatch | null {
  return s.backend.dispatchIndex.get(indexKey(s.shardEpoch.shard, s.shardEpoch.epoch, dispatchId), s.clock.nowMs());
}

/**
 * `applyPage` (ADR-0022 §3–4): plan against the frontier (shape, gap, behind) and validate every
 * entry before any write → dispatch index of the page's first sights → read them back and resolve
 * applied / duplicate / conflict → entries of the applied records → one frontier raise. Each step
 * yields to the event loop like a round trip, so zombie stores really interleave.
 */
export async function applyPage(s: MailboxScope, page: DispatchPage, faults: MemoryMailboxFaults): Promise<PageReport> {
  const before = readFrontier(s);
  const plan = planPage(page, s.shardEpoch, before);
  if (plan.kind === 'behind') return { frontier: before!, wrote: false, outcomes: [], entriesWritten: 0, entriesExpired: 0 };
  const prepared = new Map<bigint, PreparedEntry[]>(
    plan.candidates.map((c) => [c.offset, prepareEntries(s, entriesOfDispatch(c.record, s.shardEpoch.epoch, c.offset))]),
  );

  await yieldTurn();
  for (const c of plan.candidates) indexFirstSight(s, c);
  await yieldTurn();
  const { outcomes, applied } = resolvePage(plan, new Map(plan.candidates.map((c) => [c.record.dispatchId, readIndex(s, c.record.dispatchId)])));

  const entries = applied.flatMap((c) => prepared.get(c.offset)!);
  let entriesWritten = 0;
  let entriesExpired = 0;
  for (const [done, entry] of entries.entries()) {
    if (faults.crashAfterEntries === done) throw new SimulatedCrashError(`simulated crash after ${done} entries`);
    await yieldTurn();
    if (writeEntry(s, entry) === 'written') entriesWritten++;
    else entriesExpired++;
  }
  if (faults.crashAfterEntries === entries.length) throw new SimulatedCrashError(`simulated crash after ${entries.length} entries`);
  if (faults.crashBeforeFrontier === true) throw new SimulatedCrashError('simulated crash before the frontier');

  await yieldTurn();
  const frontier = raiseFrontier(s, page.toOffset);
  return { frontier, wrote: true, outcomes, entriesWritten, entriesExpired };
}
