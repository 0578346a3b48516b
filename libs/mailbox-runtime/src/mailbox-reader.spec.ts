import type { Id128 } from '@qim/store-core';
import { InvalidInputError, ManualClock, epochStartSeq } from '@qim/store-core';
import { memoryMailboxBackend } from '@qim/service-kit';
import { FrontierBoard } from './frontier-board';
import { MailboxReader } from './mailbox-reader';

const EPOCH = 2;
const T = 'a1'.padStart(32, '0') as Id128;
const user = (n: number): Id128 => n.toString(16).padStart(32, '0') as Id128;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function reader(opts: { repeatHoldMs: number; maxRememberedAnswers?: number }): MailboxReader {
  const backend = memoryMailboxBackend({ epoch: EPOCH, gc: { entryRetentionMs: 86_400_000n, dispatchDedupeMs: 8n * 86_400_000n }, applyConcurrency: 1 }, new ManualClock(1_700_000_000_000n));
  // No shard worker here: every sync reads the store, every answer is empty.
  return new MailboxReader({ storeFor: (s) => backend.storeFor(s), shardCount: 1, epoch: EPOCH, board: new FrontierBoard(), pollMs: 10, ...opts });
}

const emptySync = (r: MailboxReader, u: Id128, after: bigint) => r.sync({ tenantId: T, actingUser: u, userId: u, after, limit: 10, maxBytes: 1 << 20, waitMs: 0 });

describe('MailboxReader repeat hold memory', () => {
  it('remembers at most maxRememberedAnswers answers, forgetting the oldest first', async () => {
    const r = reader({ repeatHoldMs: 60_000, maxRememberedAnswers: 3 });
    const answers = [];
    for (let i = 1; i <= 5; i++) answers.push(await emptySync(r, user(i), epochStartSeq(EPOCH)));
    expect(r.rememberedAnswers).toBe(3);
    // the first user's answer was forgotten: its repeat is answered at once, not after 60 s
    const started = Date.now();
    await emptySync(r, user(1), answers[0]!.nextAfter);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(r.rememberedAnswers).toBe(3);
  });

  it('forgets answers older than the hold', async () => {
    // The hold is far longer than four syncs take even on a loaded CI machine (a 50 ms hold was not).
    const r = reader({ repeatHoldMs: 1_000 });
    for (let i = 1; i <= 4; i++) await emptySync(r, user(i), epochStartSeq(EPOCH));
    expect(r.rememberedAnswers).toBe(4);
    await sleep(1_100);
    await emptySync(r, user(9), epochStartSeq(EPOCH));
    expect(r.rememberedAnswers).toBe(1);
  });

  it('remembers nothing without a hold, and refuses a hold or a bound that is not a whole number of at least 0 / 1', () => {
    expect(reader({ repeatHoldMs: 0 }).rememberedAnswers).toBe(0);
    expect(() => reader({ repeatHoldMs: -1 })).toThrow(InvalidInputError);
    expect(() => reader({ repeatHoldMs: 2.5 })).toThrow(InvalidInputError);
    expect(() => reader({ repeatHoldMs: 10, maxRememberedAnswers: 0 })).toThrow(InvalidInputError);
  });
});
