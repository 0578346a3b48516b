import { memoryCoordination, openCoordination } from '@qim/backends';
import type { Coordination } from '@qim/writer-runtime';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import type { Id128, MembershipDirectory } from '@qim/store-core';
import { headers, hex, writerTestApp } from './testing/writer-test-app';
import type { WriterTestApp } from './testing/writer-test-app';

const T = hex(0x5a);
const BOB = hex(2);
const CONVS = [1, 2, 3, 4, 5].map((n) => hex(0x5c00 + n));

/**
 * Membership over a slow store: every check is answered only after a few event-loop turns, and the
 * most checks waiting at once is recorded. Checks issued together go out in one Redis round trip
 * (the connection pipelines the commands of one tick); checks issued one after the other cost one
 * round trip each.
 */
class SlowMembership implements MembershipDirectory {
  readonly inner = memoryCoordination('summaries-spec').membership;
  inFlight = 0;
  maxInFlight = 0;
  checks = 0;

  members(tenantId: Id128, conversationId: Id128): Promise<Id128[]> {
    return this.inner.members(tenantId, conversationId);
  }

  count(tenantId: Id128, conversationId: Id128): Promise<number> {
    return this.inner.count(tenantId, conversationId);
  }

  async isMember(tenantId: Id128, conversationId: Id128, userId: Id128): Promise<boolean> {
    this.checks++;
    this.maxInFlight = Math.max(this.maxInFlight, ++this.inFlight);
    for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
    this.inFlight--;
    return this.inner.isMember(tenantId, conversationId, userId);
  }

  add(tenantId: Id128, conversationId: Id128, users: readonly Id128[], maxMembers: number): Promise<number> {
    return this.inner.add(tenantId, conversationId, users, maxMembers);
  }

  remove(tenantId: Id128, conversationId: Id128, users: readonly Id128[]): Promise<number> {
    return this.inner.remove(tenantId, conversationId, users);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/** Issue 11 item 10: summaries authorize in one round trip, and a refused request reads nothing. */
describe('POST /v1/summaries authorization', () => {
  let t: WriterTestApp;
  let membership: SlowMembership;

  beforeEach(async () => {
    membership = new SlowMembership();
    t = await writerTestApp({ membership });
  });
  afterEach(() => t.app.close());

  const summaries = () =>
    t.app.inject({ method: 'POST', url: '/v1/summaries', headers: headers(T, BOB), payload: { conversations: CONVS.map((c) => ({ conversation_id: c })) } });

  it('checks the membership of every asked conversation at once (one round trip), then reads the summaries once', async () => {
    for (const c of CONVS) await membership.inner.add(T, c, [BOB], 10);
    const read = jest.spyOn(t.store, 'conversationSummaries');
    const r = await summaries();
    expect(r.statusCode).toBe(200);
    expect(r.json().summaries.map((s: { conversation_id: string }) => s.conversation_id)).toEqual(CONVS);
    expect({ checks: membership.checks, maxInFlight: membership.maxInFlight, reads: read.mock.calls.length }).toEqual({ checks: 5, maxInFlight: 5, reads: 1 });
  });

  it('refuses (403, naming the first such conversation) when the user is not in one of them, and reads nothing', async () => {
    for (const c of [CONVS[0]!, CONVS[1]!, CONVS[3]!]) await membership.inner.add(T, c, [BOB], 10);
    const read = jest.spyOn(t.store, 'conversationSummaries');
    const r = await summaries();
    expect({ status: r.statusCode, code: r.json().code, message: r.json().message }).toEqual({
      status: 403,
      code: 'FORBIDDEN',
      message: `not a member of conversation ${CONVS[2]}`,
    });
    expect({ maxInFlight: membership.maxInFlight, reads: read.mock.calls.length }).toEqual({ maxInFlight: 5, reads: 0 });
  });
});

/**
 * A TCP relay to Redis that counts round trips: a client write that follows an answer (or is the
 * first) starts a new one; writes the client sends before any answer belong to the same trip.
 */
class RoundTripRelay {
  private readonly server: net.Server;
  private readonly sockets = new Set<net.Socket>();
  private lastFromClient = false;
  trips = 0;

  constructor(private readonly upstream: URL) {
    this.server = net.createServer((client) => {
      const redis = net.connect(Number(upstream.port || 6379), upstream.hostname);
      for (const s of [client, redis]) {
        this.sockets.add(s);
        s.on('error', () => undefined);
        s.on('close', () => (client.destroy(), redis.destroy()));
      }
      client.on('data', (d) => {
        if (!this.lastFromClient) this.trips++;
        this.lastFromClient = true;
        redis.write(d);
      });
      redis.on('data', (d) => {
        this.lastFromClient = false;
        client.write(d);
      });
    });
  }

  async listen(): Promise<string> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    const u = new URL(this.upstream.toString());
    u.hostname = '127.0.0.1';
    u.port = String((this.server.address() as net.AddressInfo).port);
    return u.toString();
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

describe('POST /v1/summaries authorization over real Redis membership', () => {
  const url = process.env['QIM_REDIS_URL'];
  if (!url) throw new Error('QIM_REDIS_URL is not set: run `tools/infra/infra up redis` and `eval "$(tools/infra/infra env)"` (never skipped)');
  const relay = new RoundTripRelay(new URL(url));
  let coordination: Coordination;
  let t: WriterTestApp;

  beforeAll(async () => {
    const namespace = `qimtest-summaries-${randomBytes(4).toString('hex')}`;
    coordination = await openCoordination({ kind: 'redis', redisUrl: await relay.listen(), namespace }, 'summaries-spec', () => undefined);
    for (const c of CONVS) await coordination.membership.add(T, c, [BOB], 10);
    t = await writerTestApp({ membership: coordination.membership });
  }, 30_000);
  afterAll(async () => {
    await t?.app.close();
    for (const c of CONVS) await coordination?.membership.remove(T, c, [BOB]);
    await coordination?.close();
    await relay.close();
  }, 30_000);

  it('authorizes five conversations in one Redis round trip', async () => {
    relay.trips = 0;
    const r = await summaries();
    expect(r.statusCode).toBe(200);
    expect(relay.trips).toBe(1);
  });

  function summaries() {
    return t.app.inject({
      method: 'POST',
      url: '/v1/summaries',
      headers: headers(T, BOB),
      payload: { conversations: CONVS.map((c) => ({ conversation_id: c })) },
    });
  }
});
