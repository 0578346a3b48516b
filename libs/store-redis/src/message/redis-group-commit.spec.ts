import { randomBytes } from 'node:crypto';
import { DurableMessageCommitter, InvariantViolationError, systemClock } from '@qim/store-core';
import type { Id128, OutboxPublisher, Publication, SendRequest } from '@qim/store-core';
import type { Redis } from 'ioredis';
import { dropNamespace, testClient, testNamespace } from '../testing/redis-test-env';
import { BATCH_FLUSH_CALLS } from '../redis/script-batch';
import { RedisMessageStore } from './redis-message-store';

const rid = (): Id128 => randomBytes(16).toString('hex') as Id128;
const COMMITS = 32;

const publisher: OutboxPublisher = {
  async publish(): Promise<Publication> {
    return { topic: 'qim.messages', partition: 0, offset: 1n };
  },
};

function request(tenantId: Id128, conversationId: Id128): SendRequest {
  return {
    tenantId,
    senderId: rid(),
    clientMessageId: rid(),
    conversationId,
    kind: 'normal',
    control: false,
    contentType: 'text/plain',
    body: randomBytes(64),
    retention: { kind: 'default' },
  };
}

/** Counts the commands the client sends (each script call or batch is one), the server being real. */
function countCommands(redis: Redis): { names: string[]; restore(): void } {
  const names: string[] = [];
  const original = redis.sendCommand.bind(redis);
  redis.sendCommand = ((command: { name: string }, stream?: unknown) => {
    names.push(command.name);
    return original(command as never, stream as never);
  }) as typeof redis.sendCommand;
  return { names, restore: () => void (redis.sendCommand = original) };
}

/**
 * Group commit (ADR-0039): the commit-path script calls that concurrent commits make in one
 * event-loop turn go to Redis as one `commit-batch` EVALSHA, each call answered on its own.
 */
describe('Redis group commit', () => {
  let redis: Redis;
  let namespace: string;
  beforeEach(() => {
    redis = testClient();
    namespace = testNamespace();
  });
  afterEach(async () => {
    await dropNamespace(redis, namespace);
    await redis.quit();
  }, 120_000);

  async function sendConcurrently(groupCommit: boolean): Promise<{ commands: number; seqs: bigint[] }> {
    const store = new RedisMessageStore({ redis, namespace, clock: systemClock, ownsConnection: false, groupCommit });
    const committer = new DurableMessageCommitter(store, publisher);
    const tenantId = rid();
    const conversationId = rid();
    const counted = countCommands(redis);
    try {
      const outcomes = await Promise.all(
        Array.from({ length: COMMITS }, () => {
          const r = request(tenantId, conversationId);
          return committer.send({ request: r, messageId: rid(), createdAt: systemClock.nowMs(), recipients: [r.senderId] });
        }),
      );
      const commands = counted.names.length;
      counted.restore();
      for (const o of outcomes) expect((await store.loadCommit(o.intent.key))?.state).toBe('COMMITTED');
      return { commands, seqs: outcomes.map((o) => o.seq).sort((a, b) => (a < b ? -1 : 1)) };
    } finally {
      counted.restore();
    }
  }

  it('32 concurrent commits share their script calls: a few EVALSHA, not 5 per commit; every commit COMMITTED with its own seq', async () => {
    const { commands, seqs } = await sendConcurrently(true);
    // 160 calls. The reserve turn sends 64 in batches of BATCH_FLUSH_CALLS (ADR-0044); each batch's reply
    // lets its BATCH_FLUSH_CALLS / 2 commits make their next call together, so even when every reply
    // arrives in a turn of its own, each EVALSHA carries at least that many calls
    expect(commands).toBeLessThanOrEqual((COMMITS * 5) / (BATCH_FLUSH_CALLS / 2));
    expect(seqs).toEqual(Array.from({ length: COMMITS }, (_, i) => BigInt(i + 1)));
  }, 60_000);

  it('without group commit each call is its own EVALSHA (the A/B switch)', async () => {
    const { commands, seqs } = await sendConcurrently(false);
    expect(commands).toBeGreaterThanOrEqual(COMMITS * 5);
    expect(new Set(seqs).size).toBe(COMMITS);
  }, 60_000);

  it('a call that fails inside a batch fails alone, with the error its own script call gives; the others commit', async () => {
    const store = new RedisMessageStore({ redis, namespace, clock: systemClock, ownsConnection: false });
    const committer = new DurableMessageCommitter(store, publisher);
    const tenantId = rid();
    const good = request(tenantId, rid());
    const bad = request(tenantId, rid());
    // the bad commit's seq counter holds a hash: its claim-seq INCR raises WRONGTYPE inside the batch
    await redis.hset(store.keys.conversation(tenantId, bad.conversationId).seq, 'x', '1');
    const send = (r: SendRequest): Promise<unknown> =>
      committer.send({ request: r, messageId: rid(), createdAt: systemClock.nowMs(), recipients: [r.senderId] });
    const [okOutcome, badOutcome] = await Promise.allSettled([send(good), send(bad)]);
    expect(okOutcome.status).toBe('fulfilled');
    expect(badOutcome.status).toBe('rejected');
    expect((badOutcome as PromiseRejectedResult).reason).toBeInstanceOf(InvariantViolationError);
    expect(String((badOutcome as PromiseRejectedResult).reason.message)).toMatch(/WRONGTYPE/);
  }, 60_000);
});
