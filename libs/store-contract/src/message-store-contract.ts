import type { MessageHarnessFactory } from './harness';
import { commitCases } from './message/commit-cases';
import { crashCases } from './message/crash-cases';
import { historyCases } from './message/history-cases';
import { historyIntegrityCases } from './message/history-integrity-cases';
import { useMessageContext } from './message/message-fixtures';
import { raceCases } from './message/race-cases';
import { recordWriteCases } from './message/record-write-cases';
import { recoveryCases } from './message/recovery-cases';
import { stateGuardCases } from './message/state-guard-cases';
import { summaryCases } from './message/summary-cases';

/**
 * The one MessageStore contract suite. Every backend's spec calls it with a factory that opens a
 * fresh harness per case (a fresh tenant is used per case, so backends may share storage between
 * cases). Time-dependent cases move the harness clock, or wait short real time when it is null;
 * no case is skipped.
 */
export function describeMessageStoreContract(name: string, factory: MessageHarnessFactory): void {
  describe(`MessageStore contract: ${name}`, () => {
    const ctx = useMessageContext(factory);
    commitCases(ctx);
    stateGuardCases(ctx);
    recordWriteCases(ctx);
    raceCases(ctx);
    recoveryCases(ctx);
    crashCases(ctx);
    historyCases(ctx);
    historyIntegrityCases(ctx);
    summaryCases(ctx);
  });
}
