import type { Id128 } from '@qim/store-core';
import { InvalidInputError, epochStartSeq } from '@qim/store-core';
import { ManualClock } from '@qim/store-core/testing';
import { memoryMailboxBackend } from '@qim/backends';
import { FrontierBoard } from './frontier-board';
import { MailboxReader } from './mailbox-reader';

const EPOCH = 2;
const T = 'a1'.padStart(32, '0') as Id128;
const user = (n: number): Id128 => n.toString(16).padStart(32, '0') as Id128;
function reader(opts: { repeatHoldMs: number; maxRememberedAnswers?: number; onHold?: () => void }): MailboxReader {
  const backend = memoryMailboxBackend(
    { epoch: EPOCH, gc: { entryRetentionMs: 86_400_000n, dispatchDedupeMs: 8n * 86_400_000n }, applyConcurrency: 1 },
    new ManualClock(1_700_000_000_000n),
  );
  // No shard worker here: every sync reads the store, every answer is empty.
  return new MailboxReader({ storeFor: (s) => backend.storeFor(s), shardCount: 1, epoch: EPOCH, board: new FrontierBoard(), pollMs: 10, ...opts });
}

const emptySync = (r: MailboxReader, u: Id128, after: bigint) =>
  r.sync({ tenantId: T, actingUser: u, userId: u, after, limit: 10, maxBytes: 1 << 20, waitMs: 0 });

describe('MailboxReader repeat hold memory', () => {
  it('remembers at most maxRememberedAnswers answers, forgetting the oldest first', async () => {
    let holds = 0;
    const r = reader({ repeatHoldMs: 60_000, maxRememberedAnswers: 3, onHold: () => void (holds += 1) });
    const answers = [];
    for (let i = 1; i <= 5; i++) answers.push(await emptySync(r, user(i), epochStartSeq(EPOCH)));
    expect(r.rememberedAnswers).toBe(3);
    // the first user's answer was forgotten: its repeat is not held (answered at once, not after 60 s)
    await emptySync(r, user(1), answers[0]!.nextAfter);
    expect(holds).toBe(0);
    expect(r.rememberedAnswers).toBe(3);
  });

  describe("with the wall clock in the test's hands", () => {
    // The hold reads Date.now(): only Date is faked, and it moves only when the test says (no sleep,
    // no guess of how long four syncs take on a loaded machine). Timers stay real.
    beforeEach(() =>
      jest.useFakeTimers({
        now: 1_700_000_000_000,
        doNotFake: [
          'setTimeout',
          'clearTimeout',
          'setInterval',
          'clearInterval',
          'setImmediate',
          'clearImmediate',
          'nextTick',
          'queueMicrotask',
          'performance',
          'hrtime',
        ],
      }),
    );
    afterEach(() => jest.useRealTimers());

    it('forgets answers older than the hold', async () => {
      const r = reader({ repeatHoldMs: 1_000 });
      for (let i = 1; i <= 4; i++) await emptySync(r, user(i), epochStartSeq(EPOCH));
      expect(r.rememberedAnswers).toBe(4);
      jest.setSystemTime(Date.now() + 999);
      await emptySync(r, user(8), epochStartSeq(EPOCH));
      // younger than the hold: all kept
      expect(r.rememberedAnswers).toBe(5);
      // the first four are now the hold old: forgotten
      jest.setSystemTime(Date.now() + 1);
      await emptySync(r, user(9), epochStartSeq(EPOCH));
      expect(r.rememberedAnswers).toBe(2);
    });
  });

  it('remembers nothing without a hold, and refuses a hold or a bound that is not a whole number of at least 0 / 1', () => {
    expect(reader({ repeatHoldMs: 0 }).rememberedAnswers).toBe(0);
    expect(() => reader({ repeatHoldMs: -1 })).toThrow(InvalidInputError);
    expect(() => reader({ repeatHoldMs: 2.5 })).toThrow(InvalidInputError);
    expect(() => reader({ repeatHoldMs: 10, maxRememberedAnswers: 0 })).toThrow(InvalidInputError);
  });
});
