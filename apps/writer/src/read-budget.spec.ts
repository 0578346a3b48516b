import { ReadBudget } from '@qim/service-kit';
import { headers, hex, writerTestApp } from './testing/writer-test-app';
import type { WriterTestApp } from './testing/writer-test-app';

const T = hex(0xa1);
const CONV = hex(0xc1);
const [ALICE, BOB] = [hex(1), hex(2)];
const MiB = 1024 * 1024;

/** Resolves once `condition` holds (checked after each turn of the event loop): the moment is observed, not slept for. */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((r) => setImmediate(r));
}

describe('writer history pages under the read budget (QIM_READ_BUDGET_BYTES)', () => {
  let t: WriterTestApp;
  const budget = new ReadBudget({ totalBytes: 2 * MiB, waitMs: 0 });
  beforeEach(async () => {
    t = await writerTestApp({ readBudget: budget });
    await t.app.inject({ method: 'PUT', url: `/v1/conversations/${CONV}/members`, headers: headers(T), payload: { members: [ALICE, BOB] } });
    const body = { client_message_id: hex(0x1001), conversation_id: CONV, body: Buffer.from('m1').toString('base64') };
    await t.app.inject({ method: 'POST', url: '/v1/messages', headers: headers(T, ALICE), payload: body });
  });
  afterEach(() => t.app.close());

  const page = (maxBytes: number) => t.app.inject({ url: `/v1/conversations/${CONV}/messages?max_bytes=${maxBytes}`, headers: headers(T, BOB) });

  it('a large page beyond what the pages in flight leave gets 503 UNAVAILABLE with Retry-After; it is served once they end', async () => {
    const release = t.holdHistoryReads();
    const first = page(2 * MiB);
    await until(() => budget.inUseBytes === 2 * MiB);

    const refused = await page(MiB);
    expect([refused.statusCode, refused.headers['retry-after'], refused.json().code]).toEqual([503, '1', 'UNAVAILABLE']);
    expect(refused.json().message).toMatch(/retry/);

    release();
    const served = await first;
    expect([served.statusCode, served.json().items.length]).toEqual([200, 1]);
    expect(budget.inUseBytes).toBe(0);
    expect((await page(MiB)).statusCode).toBe(200);
  });

  it('a page whose whole max_bytes is not free reads a shorter page with the free part, and its next_anchor carries on', async () => {
    const big = Buffer.from('x'.repeat(48 * 1024)).toString('base64');
    for (let n = 2; n <= 7; n++) {
      const body = { client_message_id: hex(0x1000 + n), conversation_id: CONV, body: big };
      expect((await t.app.inject({ method: 'POST', url: '/v1/messages', headers: headers(T, ALICE), payload: body })).statusCode).toBe(200);
    }
    const whole = (await page(MiB)).json();
    expect([whole.items.length, whole.has_more]).toEqual([7, false]);

    // 128 KiB stay free: a page of two or three of these messages, not seven.
    const release = t.holdHistoryReads();
    const first = page(2 * MiB - 128 * 1024);
    await until(() => budget.inUseBytes === 2 * MiB - 128 * 1024);
    const second = page(MiB);
    await until(() => budget.inUseBytes === 2 * MiB);
    release();
    expect((await first).statusCode).toBe(200);
    const short = (await second).json();
    expect(short.has_more).toBe(true);
    expect(short.items.length).toBeLessThan(4);
    expect(short.items.length).toBeGreaterThan(0);
    expect(budget.inUseBytes).toBe(0);

    const rest = (
      await t.app.inject({ url: `/v1/conversations/${CONV}/messages?max_bytes=${MiB}&anchor=${short.next_anchor}`, headers: headers(T, BOB) })
    ).json();
    expect([...short.items, ...rest.items].map((m: { seq: string }) => m.seq)).toEqual(whole.items.map((m: { seq: string }) => m.seq));
  });

  it('pages whose budgets fit together are served concurrently', async () => {
    const release = t.holdHistoryReads();
    const both = [page(MiB), page(MiB)];
    await until(() => budget.inUseBytes === 2 * MiB);
    release();
    expect((await Promise.all(both)).map((r) => r.statusCode)).toEqual([200, 200]);
  });
});
