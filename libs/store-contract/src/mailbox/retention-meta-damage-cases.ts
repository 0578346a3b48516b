import { CorruptEntryError, DAY_MS } from '@qim/store-core';
import { expectStoreError } from '../support/expect-error';
import { randomId } from '../support/ids';
import { entryInput, seqAt, startOf, topOf } from './mailbox-fixtures';
import type { MailboxContext } from './mailbox-fixtures';

/**
 * Review case (issue 10): a retention meta row of an older format or only partly present fails
 * closed — `CorruptEntry` for the reader and for an append that needs the meta (a new day), never
 * guessed, rewritten or skipped — and other users are unaffected.
 */
export function retentionMetaDamageCases(ctx: () => MailboxContext): void {
  describe('damaged retention meta', () => {
    it.each(['old-version', 'partial'] as const)(
      'a %s meta row → CorruptEntry for reads and for a new-day append (fresh store), nothing rewritten',
      async (damage) => {
        const c = ctx();
        const store = await c.open();
        const [u, witness] = [randomId(), randomId()];
        const now = c.time.now();
        for (const user of [u, witness]) await store.appendBatch([entryInput(c.tenantId, user, seqAt(store, 4n), now)]);
        await c.harness.damageRetentionMeta(c.tenantId, u, damage);

        const fresh = await c.open();
        await expectStoreError(fresh.rangeScan(c.tenantId, u, startOf(fresh), topOf(fresh), 100), CorruptEntryError);
        await expectStoreError(store.rangeScan(c.tenantId, u, startOf(store), topOf(store), 100), CorruptEntryError);
        // a new day must change the ledger: the append reads the meta and refuses
        await expectStoreError(fresh.appendBatch([entryInput(c.tenantId, u, seqAt(fresh, 6n), now - DAY_MS)]), CorruptEntryError);
        // still damaged (not repaired or replaced by the refused append)
        await expectStoreError(fresh.rangeScan(c.tenantId, u, startOf(fresh), topOf(fresh), 100), CorruptEntryError);
        expect((await fresh.rangeScan(c.tenantId, witness, startOf(fresh), topOf(fresh), 100)).entries.map((e) => e.mailboxSeq)).toEqual([seqAt(fresh, 4n)]);
      },
    );
  });
}
