import type { MailboxHarnessFactory } from './harness';
import { appendCases } from './mailbox/append-cases';
import { useMailboxContext } from './mailbox/mailbox-fixtures';
import { pageApplyCases } from './mailbox/page-apply-cases';
import { pageCrashCases } from './mailbox/page-crash-cases';
import { pageCutCases } from './mailbox/page-cut-cases';
import { pageDuplicateCases } from './mailbox/page-duplicate-cases';
import { pageZombieCases } from './mailbox/page-zombie-cases';
import { retentionBoundCases } from './mailbox/retention-bound-cases';
import { retentionCases } from './mailbox/retention-cases';
import { retentionChangeCases } from './mailbox/retention-change-cases';
import { retentionEpochCases } from './mailbox/retention-epoch-cases';
import { retentionMetaDamageCases } from './mailbox/retention-meta-damage-cases';
import { retentionRaceCases } from './mailbox/retention-race-cases';
import { scanBudgetCases } from './mailbox/scan-budget-cases';
import { scanCases } from './mailbox/scan-cases';
import { scanManyCases } from './mailbox/scan-many-cases';

/**
 * The one MailboxStore contract suite (ADR-0022: shard frontier, advance by page). Every backend's
 * spec calls it with a factory that opens a fresh harness per case; each case uses a fresh random
 * shard, epoch and tenant, so backends may share storage between cases. Time-dependent cases move
 * the harness clock, or pick short real TTLs (retention and dedupe windows computed from "now") and
 * wait when it is null; no case is skipped.
 */
export function describeMailboxStoreContract(name: string, factory: MailboxHarnessFactory): void {
  describe(`MailboxStore contract: ${name}`, () => {
    const ctx = useMailboxContext(factory);
    it('capabilities.injectableClock matches the harness clock', async () => {
      const c = ctx();
      const store = await c.open();
      expect(store.capabilities.injectableClock).toBe(c.harness.clock !== null);
      expect(store.shardEpoch).toEqual(c.shardEpoch);
    });
    appendCases(ctx);
    scanCases(ctx);
    scanBudgetCases(ctx);
    scanManyCases(ctx);
    retentionCases(ctx);
    retentionBoundCases(ctx);
    retentionRaceCases(ctx);
    retentionEpochCases(ctx);
    retentionChangeCases(ctx);
    retentionMetaDamageCases(ctx);
    pageApplyCases(ctx);
    pageDuplicateCases(ctx);
    pageZombieCases(ctx);
    pageCrashCases(ctx);
    pageCutCases(ctx);
  });
}
