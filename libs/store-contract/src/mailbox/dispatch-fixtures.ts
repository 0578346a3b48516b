import { LANE_COUNT } from '@qim/store-core';
import type { DispatchManifest, DispatchReceipt, Id128, LaneWatermark, MailboxEntryInput, MailboxStore } from '@qim/store-core';
import { randomId } from '../support/ids';
import { entryInput, event, manifestFor, usersInOneLane } from './mailbox-fixtures';
import type { MailboxContext } from './mailbox-fixtures';

/** A dispatch whose recipients all sit in `lane` (chunk size 2, so 3 users → chunks 0 and 1). */
export interface TestDispatch {
  readonly dispatchId: Id128;
  readonly manifest: DispatchManifest;
  readonly digest: Buffer;
  readonly lane: number;
  readonly users: readonly Id128[];
}

/** A dispatch of `n` users in one lane. */
export function oneLaneDispatch(c: MailboxContext, n = 3): TestDispatch {
  const { lane, users } = usersInOneLane(c.tenantId, n);
  const { manifest, digest } = manifestFor(c.tenantId, users, 2);
  return { dispatchId: manifest.dispatchId, manifest, digest, lane, users };
}

/** A dispatch with no recipient at all (every lane empty). */
export function emptyDispatch(c: MailboxContext): TestDispatch {
  const { manifest, digest } = manifestFor(c.tenantId, [], 2, randomId());
  return { dispatchId: manifest.dispatchId, manifest, digest, lane: 0, users: [] };
}

/** The entries of one declared chunk at the receipt's seq. */
export function chunkEntries(c: MailboxContext, d: TestDispatch, receipt: DispatchReceipt, chunkId: number): MailboxEntryInput[] {
  const chunk = d.manifest.lanes[d.lane]!.chunks[chunkId]!;
  return chunk.users.map((u) => entryInput(c.tenantId, u, receipt.mailboxSeq, c.time.now(), [event(0, `dispatch ${d.dispatchId}`)]));
}

/** Begins `d` at `offset`, writes and completes every chunk of its lane. */
export async function completeDispatch(c: MailboxContext, store: MailboxStore, d: TestDispatch, offset: bigint): Promise<DispatchReceipt> {
  const receipt = await store.beginDispatch(d.dispatchId, offset, d.manifest, d.digest);
  const chunks = d.manifest.lanes[d.lane]!.chunks;
  for (const chunk of chunks) {
    await store.appendChunk(receipt, d.lane, chunk.chunkId, chunkEntries(c, d, receipt, chunk.chunkId));
    await store.markChunkCompleted(receipt, d.lane, chunk.chunkId);
  }
  return receipt;
}

/** Advances W of every lane from `expectedPrev` to `offset`. */
export async function advanceAllLanes(store: MailboxStore, expectedPrev: bigint | null, offset: bigint): Promise<void> {
  for (let lane = 0; lane < LANE_COUNT; lane++) await store.advanceWatermark(lane, expectedPrev, offset);
}

/** Advances the floor of every lane from `expectedFloor` to `floor`. */
export async function advanceAllFloors(store: MailboxStore, expectedFloor: bigint | null, floor: bigint): Promise<void> {
  for (let lane = 0; lane < LANE_COUNT; lane++) await store.advanceFloor(lane, expectedFloor, floor);
}

/** `laneWatermark` of every lane. */
export async function allWatermarks(store: MailboxStore): Promise<LaneWatermark[]> {
  const out: LaneWatermark[] = [];
  for (let lane = 0; lane < LANE_COUNT; lane++) out.push(await store.laneWatermark(lane));
  return out;
}
