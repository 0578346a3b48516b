import { randomBytes } from 'node:crypto';
import type { CommitIntent, Id128, MessageCommitSteps, MessageRecoveryScan, OutboxPublisher, Publication, SendRequest } from '@qim/store-core';
import { DurableMessageCommitter, RecoveryRunner, UnavailableError, commitKeyString } from '@qim/store-core';
import { ManualClock } from '@qim/store-core/testing';
import { openCoordination, openMessageBackend } from '@qim/backends';
import type { RecoveryClaims } from '@qim/store-core';
import { MemoryRecoveryClaims } from '@qim/store-memory';

jest.setTimeout(30_000);

const id = (n: number): Id128 => n.toString(16).padStart(32, '0') as Id128;
const T = id(0x5e);

function redisUrl(): string {
  const url = process.env['QIM_REDIS_URL'];
  if (!url) throw new Error('QIM_REDIS_URL is not set: run `tools/infra/infra up redis` and `eval "$(tools/infra/infra env)"` (never skipped)');
  return url;
}

/** A broker that takes `delayMs` per publish and counts publications per commit key. */
class SlowBroker implements OutboxPublisher {
  readonly counts = new Map<string, number>();
  down = false;
  constructor(private readonly delayMs: number) {}
  async publish(intent: CommitIntent): Promise<Publication> {
    if (this.down) throw new UnavailableError('broker down');
    await new Promise((r) => setTimeout(r, this.delayMs));
    const k = commitKeyString(intent.key);
    this.counts.set(k, (this.counts.get(k) ?? 0) + 1);
    return { topic: 'qim.messages', partition: 0, offset: BigInt(this.counts.size) };
  }
}

const request = (n: number): SendRequest => ({
  tenantId: T,
  senderId: id(1),
  clientMessageId: id(0x2000 + n),
  conversationId: id(0xc0 + (n % 3)),
  kind: 'normal',
  control: false,
  contentType: 'text/plain',
  body: new Uint8Array([n]),
  retention: { kind: 'default' },
});

/** `count` commits left RECORDED by a failed publish (the sends' clients got 503). */
async function slowCommits(store: MessageCommitSteps, clock: ManualClock, broker: SlowBroker, count: number): Promise<void> {
  const committer = new DurableMessageCommitter(store, broker);
  broker.down = true;
  for (let n = 0; n < count; n++) {
    await expect(committer.send({ request: request(n), messageId: id(0x7000 + n), createdAt: clock.nowMs(), recipients: [id(1)] })).rejects.toMatchObject({
      code: 'UNAVAILABLE',
    });
  }
  broker.down = false;
}

/** One writer's recovery: its own committer (no shared single flight), its own claims. */
function writerRecovery(
  store: MessageCommitSteps & MessageRecoveryScan,
  broker: SlowBroker,
  clock: ManualClock,
  claims: RecoveryClaims | null,
): RecoveryRunner {
  return new RecoveryRunner(store, new DurableMessageCommitter(store, broker), {
    graceMs: 1_000n,
    maxItems: 100,
    clock,
    ...(claims === null ? {} : { claim: (key) => claims.claim(key, 10_000) }),
  });
}

const COMMITS = 12;

describe('recovery shared between writers', () => {
  it('without claims, two writers republish every slow commit (what the claims prevent)', async () => {
    const clock = new ManualClock(BigInt(Date.now()));
    const backend = await openMessageBackend(
      { kind: 'redis', redisUrl: redisUrl(), namespace: `qimrs-${randomBytes(4).toString('hex')}` },
      'test',
      () => undefined,
      clock,
    );
    try {
      const broker = new SlowBroker(5);
      await slowCommits(backend.store, clock, broker, COMMITS);
      clock.advance(2_000n);
      await Promise.all([writerRecovery(backend.store, broker, clock, null).runOnce(), writerRecovery(backend.store, broker, clock, null).runOnce()]);
      expect([...broker.counts.values()].reduce((a, b) => a + b, 0)).toBeGreaterThan(COMMITS);
    } finally {
      await backend.close();
    }
  });

  it('redis claims: two writers recovering at once publish each slow commit exactly once between them', async () => {
    const clock = new ManualClock(BigInt(Date.now()));
    const namespace = `qimrs-${randomBytes(4).toString('hex')}`;
    const backend = await openMessageBackend({ kind: 'redis', redisUrl: redisUrl(), namespace }, 'test', () => undefined, clock);
    const [a, b] = await Promise.all(
      ['writer-a', 'writer-b'].map((owner) => openCoordination({ kind: 'redis', redisUrl: redisUrl(), namespace }, owner, () => undefined)),
    );
    try {
      const broker = new SlowBroker(5);
      await slowCommits(backend.store, clock, broker, COMMITS);
      clock.advance(2_000n);
      const [ra, rb] = await Promise.all([
        writerRecovery(backend.store, broker, clock, a!.claims).runOnce(),
        writerRecovery(backend.store, broker, clock, b!.claims).runOnce(),
      ]);
      expect(broker.counts.size).toBe(COMMITS);
      expect([...broker.counts.values()]).toEqual(Array(COMMITS).fill(1));
      expect(ra.completed + rb.completed).toBe(COMMITS);
      expect([ra.failed, rb.failed]).toEqual([0, 0]);
      expect(await backend.store.scanRecoverableCommits(clock.nowMs(), 100)).toEqual([]);
    } finally {
      await Promise.all([a!.close(), b!.close(), backend.close()]);
    }
  });

  it('a claim lets its holder retry and others take over only once it expired', async () => {
    let now = 0;
    const table = new Map();
    const [a, b] = [new MemoryRecoveryClaims('a', () => now, table), new MemoryRecoveryClaims('b', () => now, table)];
    const key = { tenantId: T, senderId: id(1), clientMessageId: id(3) };
    expect(await a.claim(key, 1_000)).toBe(true);
    expect(await b.claim(key, 1_000)).toBe(false);
    now = 500;
    expect(await a.claim(key, 1_000)).toBe(true);
    now = 1_400;
    expect(await b.claim(key, 1_000)).toBe(false);
    now = 1_500;
    expect(await b.claim(key, 1_000)).toBe(true);
    expect(await a.claim(key, 1_000)).toBe(false);
  });

  it('redis claims follow the same rule', async () => {
    const namespace = `qimrs-${randomBytes(4).toString('hex')}`;
    const [a, b] = await Promise.all(['a', 'b'].map((owner) => openCoordination({ kind: 'redis', redisUrl: redisUrl(), namespace }, owner, () => undefined)));
    try {
      const key = { tenantId: T, senderId: id(1), clientMessageId: id(4) };
      // Live claims last a minute, so no round trip on a loaded machine outlasts them; only the claim
      // meant to expire is short, and the test waits past its end (a timer never fires early).
      expect(await a!.claims.claim(key, 60_000)).toBe(true);
      expect(await b!.claims.claim(key, 60_000)).toBe(false);
      expect(await a!.claims.claim(key, 300)).toBe(true);
      await new Promise((r) => setTimeout(r, 400));
      expect(await b!.claims.claim(key, 60_000)).toBe(true);
      expect(await a!.claims.claim(key, 60_000)).toBe(false);
    } finally {
      await Promise.all([a!.close(), b!.close()]);
    }
  });
});
