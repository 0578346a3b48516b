import { NO_RETRY, QimUnavailableError } from '@qim/client';
import { hex } from './support/e2e-env';
import { eventually } from './support/eventually';
import { redisCommand } from './support/redis-probe';
import { ServiceStack } from './support/service-stack';

/**
 * The writer-id lease over real Redis: a lost lease stops sends and turns readiness red; when the id
 * can be taken back, readiness turns green again by itself (no traffic needed) and sends resume; when
 * it cannot be taken back within QIM_LEASE_REACQUIRE_MS, the process exits non-zero with the reason.
 */
describe('writer lease loss (redis, kafka)', () => {
  const stack = new ServiceStack({ QIM_LEASE_REACQUIRE_MS: '4000' });
  const T = hex(0x1ea5e);
  const CONV = hex(0xc0ffee);
  const alice = hex(0x100);
  // No retries: a 503 of the lost lease must be seen, not waited out.
  const send = (n: number) => stack.client(T, alice, { retry: NO_RETRY }).send({ conversationId: CONV, body: `m${n}`, clientMessageId: hex(0xd000 + n) });
  const ready = async () => {
    const r = await stack.client().readiness('writer');
    return { status: r.status, lease: r.checks['writer-lease'] as { ok: boolean; detail: { writerId: number; lost: string | null } } };
  };
  let leaseKey = '';
  const redis = (...args: string[]) => redisCommand(stack.env['QIM_REDIS_URL']!, ...args);

  beforeAll(async () => {
    await stack.createTopics();
    await stack.startWriter();
    expect(await stack.client(T).addMembers(CONV, [alice])).toBe(1);
    const writerId = (await ready()).lease.detail.writerId;
    leaseKey = `${stack.env['QIM_REDIS_NAMESPACE']}:{writers}:lease:${writerId}`;
  });
  afterAll(() => stack.writer?.stop('SIGKILL'));

  it('stops sends and turns unready when another process takes the id, then recovers by itself once it is free', async () => {
    expect((await send(1)).seq).toBe(1n);
    expect(await redis('SET', leaseKey, 'another-process', 'PX', '60000')).toBe('OK');
    await eventually('readiness red with the lease lost', async () => (await ready()).status === 503, 10_000, 100);
    const lost = await ready();
    expect(lost.lease).toMatchObject({ ok: false, detail: { lost: expect.stringContaining('held by another process') } });
    const refused = await send(2).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(QimUnavailableError);
    expect(refused).toMatchObject({ status: 503, code: 'UNAVAILABLE' });

    expect(await redis('DEL', leaseKey)).toBe(1);
    // No request in between: the keeper's own ticks take the id back and readiness follows.
    await eventually('readiness green again without traffic', async () => (await ready()).status === 200, 3_500, 100);
    expect(stack.writer!.output).toContain('writer lease re-acquired');
    const sent = await send(2);
    expect([sent.seq, sent.replay]).toEqual([2n, false]);
  });

  it('exits non-zero with the reason when the id cannot be taken back within QIM_LEASE_REACQUIRE_MS', async () => {
    const stolenAt = Date.now();
    expect(await redis('SET', leaseKey, 'another-process', 'PX', '60000')).toBe('OK');
    const exit = await Promise.race([stack.writer!.exited, new Promise<null>((r) => setTimeout(() => r(null), 20_000))]);
    expect(exit).toEqual({ code: 1, signal: null });
    // Lost at the next renewal (≤ TTL/3 = 1 s), then 4 s of re-acquisition attempts.
    expect(Date.now() - stolenAt).toBeGreaterThanOrEqual(4_000);
    expect(stack.writer!.output).toMatch(
      /terminal failure, exiting: writer lease lost and not re-acquired within 4000 ms: writer id \d+ is held by another process/,
    );
    expect(stack.writer!.output).toMatch(/"msg":"stopped"/);
  });
});
