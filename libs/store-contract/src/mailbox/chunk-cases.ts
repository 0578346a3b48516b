import { ConflictError, InvalidInputError, NotFoundError, composeMailboxSeq } from '@qim/store-core';
import type { DispatchReceipt } from '@qim/store-core';
import { expectStoreError } from '../support/expect-error';
import { randomId } from '../support/ids';
import { chunkEntries, oneLaneDispatch } from './dispatch-fixtures';
import { startOf, topOf } from './mailbox-fixtures';
import type { MailboxContext } from './mailbox-fixtures';

/** `appendChunk`, `markChunkCompleted`, `chunkCompleted` and the merged `dispatchProgress`. */
export function chunkCases(ctx: () => MailboxContext): void {
  describe('chunks and progress', () => {
    it('appendChunk writes each user’s complete group at the receipt seq; completion facts are separate', async () => {
      const c = ctx();
      const store = await c.open();
      const d = oneLaneDispatch(c, 3);
      const receipt = await store.beginDispatch(d.dispatchId, 50n, d.manifest, d.digest);
      const entries = chunkEntries(c, d, receipt, 0);
      expect(await store.appendChunk(receipt, d.lane, 0, entries)).toEqual({ written: 2, expired: 0 });
      for (const e of entries) {
        const page = await store.rangeScan(c.tenantId, e.userId, startOf(store), topOf(store), 10);
        expect(page.entries.map((x) => [x.mailboxSeq, x.events.length])).toEqual([[receipt.mailboxSeq, 1]]);
      }
      expect(await store.chunkCompleted(d.dispatchId, d.lane, 0)).toBe(false);
      await store.markChunkCompleted(receipt, d.lane, 1);
      await store.markChunkCompleted(receipt, d.lane, 1);
      expect(await store.chunkCompleted(d.dispatchId, d.lane, 1)).toBe(true);
      const lastUser = d.manifest.lanes[d.lane]!.chunks[1]!.users[0]!;
      expect((await store.rangeScan(c.tenantId, lastUser, startOf(store), topOf(store), 10)).entries).toEqual([]);
    });

    it('chunks outside the manifest are refused (InvalidInput) and write nothing', async () => {
      const c = ctx();
      const store = await c.open();
      const d = oneLaneDispatch(c, 3);
      const receipt = await store.beginDispatch(d.dispatchId, 50n, d.manifest, d.digest);
      const emptyLane = (d.lane + 1) % 64;
      const good = chunkEntries(c, d, receipt, 0);
      await expectStoreError(store.appendChunk(receipt, d.lane, 2, good), InvalidInputError);
      await expectStoreError(store.appendChunk(receipt, emptyLane, 0, good), InvalidInputError);
      await expectStoreError(store.appendChunk(receipt, d.lane, -1, good), InvalidInputError);
      await expectStoreError(store.markChunkCompleted(receipt, d.lane, 2), InvalidInputError);
      await expectStoreError(store.markChunkCompleted(receipt, emptyLane, 0), InvalidInputError);
      const stranger = { ...good[0]!, userId: randomId() };
      const wrongSeq = { ...good[0]!, mailboxSeq: composeMailboxSeq(c.shardEpoch.epoch, 51n) };
      const wrongTenant = { ...good[0]!, tenantId: randomId() };
      for (const bad of [[good[0]!], [...good, stranger], [stranger, good[1]!], [wrongSeq, good[1]!], [wrongTenant, good[1]!]]) {
        await expectStoreError(store.appendChunk(receipt, d.lane, 0, bad), InvalidInputError);
      }
      for (const u of [...d.users, stranger.userId]) {
        expect((await store.rangeScan(c.tenantId, u, startOf(store), topOf(store), 10)).entries).toEqual([]);
      }
      expect(await store.chunkCompleted(d.dispatchId, d.lane, 2)).toBe(false);
    });

    it('a receipt that is not the stored one → Conflict; an unknown dispatch → NotFound', async () => {
      const c = ctx();
      const store = await c.open();
      const d = oneLaneDispatch(c, 2);
      const receipt = await store.beginDispatch(d.dispatchId, 50n, d.manifest, d.digest);
      const entries = chunkEntries(c, d, receipt, 0);
      const forged: DispatchReceipt[] = [
        { ...receipt, canonicalOffset: 51n, mailboxSeq: composeMailboxSeq(c.shardEpoch.epoch, 51n) },
        { ...receipt, digest: Buffer.alloc(32, 7) },
      ];
      for (const r of forged) {
        await expectStoreError(store.appendChunk(r, d.lane, 0, entries.map((e) => ({ ...e, mailboxSeq: r.mailboxSeq }))), ConflictError);
        await expectStoreError(store.markChunkCompleted(r, d.lane, 0), ConflictError);
      }
      const ghost = { ...receipt, dispatchId: randomId() };
      await expectStoreError(store.appendChunk(ghost, d.lane, 0, entries), NotFoundError);
      await expectStoreError(store.markChunkCompleted(ghost, d.lane, 0), NotFoundError);
      expect(await store.chunkCompleted(d.dispatchId, d.lane, 0)).toBe(false);
    });

    it('dispatchProgress merges lane completion; completedAt is set when the last declared chunk completes', async () => {
      const c = ctx();
      const store = await c.open();
      const d = oneLaneDispatch(c, 5);
      const receipt = await store.beginDispatch(d.dispatchId, 60n, d.manifest, d.digest);
      await store.markChunkCompleted(receipt, d.lane, 2);
      await store.markChunkCompleted(receipt, d.lane, 0);
      const p1 = (await store.dispatchProgress(d.dispatchId))!;
      expect(p1.completedChunks[d.lane]).toEqual([0, 2]);
      expect(p1.completedChunks.filter((l) => l.length > 0)).toHaveLength(1);
      expect(p1.completedAt).toBeNull();
      await c.time.pass(10n);
      const t0 = c.time.now();
      await store.markChunkCompleted(receipt, d.lane, 1);
      const p2 = (await store.dispatchProgress(d.dispatchId))!;
      expect(p2.completedChunks[d.lane]).toEqual([0, 1, 2]);
      expect(p2.completedAt).not.toBeNull();
      expect(p2.completedAt! >= t0).toBe(true);
      await c.time.pass(10n);
      await store.markChunkCompleted(receipt, d.lane, 1);
      expect((await store.dispatchProgress(d.dispatchId))!.completedAt).toBe(p2.completedAt);
    });
  });
}
