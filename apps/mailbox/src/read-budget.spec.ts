import { ReadBudget } from '@qim/service-kit';
import { specMessage } from '@qim/mailbox-runtime/testing';
import { headers, hex, mailboxTestApp } from './testing/mailbox-test-app';
import type { MailboxTestApp } from './testing/mailbox-test-app';

const T = hex(0xa1);
const USER = hex(0x11);
const MiB = 1024 * 1024;

/** Resolves once `condition` holds (checked after each turn of the event loop): the moment is observed, not slept for. */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((r) => setImmediate(r));
}

describe('mailbox sync pages under the read budget (QIM_READ_BUDGET_BYTES)', () => {
  let t: MailboxTestApp;
  const budget = new ReadBudget({ totalBytes: 2 * MiB, waitMs: 0 });
  beforeEach(async () => {
    t = await mailboxTestApp({ readBudget: budget });
    await t.deliver(specMessage(T, USER, 1n, t.clock.nowMs()), [USER]);
  });
  afterEach(() => t.app.close());

  const sync = (maxBytes: number) => t.app.inject({ url: `/v1/mailboxes/${USER}/entries?max_bytes=${maxBytes}`, headers: headers(T, USER) });

  it('a large page beyond what the pages in flight leave gets 503 UNAVAILABLE with Retry-After; it is served once they end', async () => {
    const release = t.holdScans();
    const first = sync(2 * MiB);
    await until(() => budget.inUseBytes === 2 * MiB);

    const refused = await sync(MiB);
    expect([refused.statusCode, refused.headers['retry-after'], refused.json().code]).toEqual([503, '1', 'UNAVAILABLE']);

    release();
    const served = await first;
    expect([served.statusCode, served.json().entries.length]).toEqual([200, 1]);
    expect(budget.inUseBytes).toBe(0);
    expect((await sync(MiB)).statusCode).toBe(200);
  });

  it('a page whose whole max_bytes is not free reads a shorter page with the free part, and its next_after carries on', async () => {
    const big = 'x'.repeat(60 * 1024);
    for (let seq = 2n; seq <= 7n; seq++) await t.deliver(specMessage(T, USER, seq, t.clock.nowMs(), big), [USER]);
    const whole = (await sync(MiB)).json();
    expect([whole.entries.length, whole.has_more]).toEqual([7, false]);

    // 128 KiB stay free: a page of two or three of these entries, not seven.
    const release = t.holdScans();
    const first = sync(2 * MiB - 128 * 1024);
    await until(() => budget.inUseBytes === 2 * MiB - 128 * 1024);
    const second = sync(MiB);
    await until(() => budget.inUseBytes === 2 * MiB);
    release();
    expect((await first).statusCode).toBe(200);
    const short = await second;
    expect(short.statusCode).toBe(200);
    const page = short.json();
    expect(page.has_more).toBe(true);
    expect(page.entries.length).toBeLessThan(4);
    expect(page.entries.length).toBeGreaterThan(0);
    expect(budget.inUseBytes).toBe(0);

    const rest = (await t.app.inject({ url: `/v1/mailboxes/${USER}/entries?after=${page.next_after}`, headers: headers(T, USER) })).json();
    expect([...page.entries, ...rest.entries].map((e: { seq: string }) => e.seq)).toEqual(whole.entries.map((e: { seq: string }) => e.seq));
  });

  it('a long poll holds no share while it waits', async () => {
    const page = (await sync(2 * MiB)).json();
    const waiting = t.app.inject({
      url: `/v1/mailboxes/${USER}/entries?max_bytes=${2 * MiB}&after=${page.next_after}&wait_ms=4000`,
      headers: headers(T, USER),
    });
    await until(() => t.board.waiterCount() > 0);
    expect(budget.inUseBytes).toBe(0);
    expect((await sync(2 * MiB)).statusCode).toBe(200);
    await t.deliver(specMessage(T, USER, 2n, t.clock.nowMs()), [USER]);
    expect((await waiting).json().entries).toHaveLength(1);
  });
});
