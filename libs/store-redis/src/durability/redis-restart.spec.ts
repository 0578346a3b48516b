import { randomBytes } from 'node:crypto';
import { DurableMessageCommitter, RecoveryRunner, composeMailboxSeq, epochStartSeq } from '@qim/store-core';
import { ManualClock } from '@qim/store-core/testing';
import type { Id128, MailboxEntryInput, OutboxPublisher, Publication, SendOutcome, SendRequest } from '@qim/store-core';
import { Redis } from 'ioredis';
import { RedisMailboxStore } from '../mailbox/redis-mailbox-store';
import { RedisMessageStore } from '../message/redis-message-store';
import { checkRedisReadiness } from '../readiness/redis-readiness';
import { RedisServerProcess } from '../testing/redis-server-process';

const rid = (): Id128 => randomBytes(16).toString('hex') as Id128;

/** A broker stand-in: acknowledges every publish with the next offset. */
class CountingPublisher implements OutboxPublisher {
  private next = 0n;
  async publish(): Promise<Publication> {
    return { topic: 'qim.messages', partition: 0, offset: this.next++ };
  }
}

/** A client that notices a dead server quickly and reconnects on its own once it is back. */
function client(url: string): Redis {
  return new Redis(url, { maxRetriesPerRequest: 1, retryStrategy: (n) => Math.min(n * 50, 500), enableAutoPipelining: true });
}

async function waitFor(cond: () => boolean, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const request = (tenantId: Id128, conversationId: Id128): SendRequest => ({
  tenantId,
  senderId: rid(),
  clientMessageId: rid(),
  conversationId,
  kind: 'normal',
  control: false,
  contentType: 'text/plain',
  body: randomBytes(64),
  retention: { kind: 'default' },
});

/**
 * Durability: a dedicated redis-server (appendonly yes, appendfsync always) is SIGKILLed while
 * commits and mailbox appends are in flight, then restarted from its AOF. Every write that was
 * acknowledged before (or after) the crash must be there; the writes that failed are either absent
 * or finished by recovery, never duplicated.
 */
describe('Redis restart mid-run (AOF, appendfsync always)', () => {
  let server: RedisServerProcess;
  beforeAll(async () => {
    server = await RedisServerProcess.start(['--appendonly', 'yes', '--appendfsync', 'always']);
  }, 20_000);
  afterAll(async () => {
    await server.stop();
  });

  it('nothing acknowledged is lost: commits and mailbox entries survive a kill -9 of the server', async () => {
    const redis = client(server.url);
    expect(await checkRedisReadiness(redis, 'production')).toMatchObject({ ready: true, appendonly: 'yes', appendfsync: 'always' });
    const clock = new ManualClock(BigInt(Date.now()));
    const namespace = 'restart';
    const messages = new RedisMessageStore({ redis, namespace, clock, ownsConnection: false });
    const mailbox = new RedisMailboxStore({
      redis,
      namespace,
      clock,
      ownsConnection: false,
      shardEpoch: { shard: 1, epoch: 2 },
      gc: { entryRetentionMs: 86_400_000n, dispatchDedupeMs: 86_400_000n },
    });
    const committer = new DurableMessageCommitter(messages, new CountingPublisher());
    const tenantId = rid();
    const conversations = [rid(), rid(), rid()];

    const acked: SendOutcome[] = [];
    const ackedEntries: MailboxEntryInput[] = [];
    let failures = 0;
    let stop = false;
    let offset = 0n;
    const writer = async (k: number): Promise<void> => {
      while (!stop) {
        const conv = conversations[k % conversations.length]!;
        const req = request(tenantId, conv);
        const entry: MailboxEntryInput = {
          tenantId,
          userId: req.senderId,
          mailboxSeq: composeMailboxSeq(2, offset++),
          createdAt: clock.nowMs(),
          events: [{ ordinal: 0, eventId: rid(), payload: Buffer.from(req.body) }],
        };
        try {
          acked.push(await committer.send({ request: req, messageId: rid(), createdAt: clock.nowMs(), recipients: [req.senderId] }));
          await mailbox.appendBatch([entry]);
          ackedEntries.push(entry);
        } catch {
          failures++;
          await new Promise((r) => setTimeout(r, 20));
        }
      }
    };
    const writers = Array.from({ length: 8 }, (_, k) => writer(k));

    await waitFor(() => acked.length >= 200, 'first 200 acknowledged commits');
    const beforeCrash = acked.length;
    await server.kill();
    await new Promise((r) => setTimeout(r, 300));
    await server.restart();
    const target = acked.length + 100;
    await waitFor(() => acked.length >= target, '100 more acknowledged commits after the restart');
    stop = true;
    await Promise.all(writers);

    expect(beforeCrash).toBeGreaterThanOrEqual(200);
    expect(failures).toBeGreaterThan(0);

    clock.advance(1_000n);
    const recovery = new RecoveryRunner(messages, committer, { graceMs: 0n, maxItems: 1000, clock });
    await recovery.runOnce();

    for (const a of acked) {
      const s = await messages.loadCommit(a.intent.key);
      expect(s?.state).toBe('COMMITTED');
      expect(s?.intent.seq).toBe(a.seq);
      expect(s?.intent.messageId).toBe(a.messageId);
    }
    for (const conv of conversations) {
      const page = await messages.historyPage({ canReadHistory: async () => true }, { tenantId, userId: rid() }, conv, {
        direction: 'newer',
        anchor: null,
        maxItems: 1000,
        maxBytes: 1 << 30,
      });
      const seqs = page.items.map((i) => i.record.seq);
      expect(new Set(seqs).size).toBe(seqs.length);
      const ackedHere = acked.filter((a) => a.intent.request.conversationId === conv).map((a) => a.seq);
      expect(seqs).toEqual(expect.arrayContaining(ackedHere));
    }
    expect(await messages.scanRecoverableCommits(clock.nowMs(), 1000)).toEqual([]);

    for (const e of ackedEntries) {
      const page = await mailbox.rangeScan(tenantId, e.userId, epochStartSeq(2), composeMailboxSeq(2, offset), 10);
      expect(page.entries.map((x) => x.mailboxSeq)).toEqual([e.mailboxSeq]);
    }
    redis.disconnect();
  }, 60_000);
});
