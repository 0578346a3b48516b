import { QimResyncRequiredError } from '../errors/qim-error';
import type { ResyncEvent, SyncPage } from '../model/mailbox-model';
import { QimClient } from '../qim-client';
import type { ScriptedRequest } from '../testing/scripted-server';
import { ScriptedServer } from '../testing/scripted-server';
import { entryJson, hex, messageJson, syncJson } from '../testing/wire-fixtures';

const T = hex(0x7e),
  BOB = hex(0xb0),
  CONV = hex(0xc0);
const PATH = `/v1/mailboxes/${BOB}/entries`;

/** A mailbox of one user that answers like the service: `after`, `limit`, and `wait_ms` held until entries arrive. */
class FakeMailbox {
  private readonly seqs: bigint[] = [];
  private readonly waiters = new Set<() => void>();
  held = 0;
  released = 0;

  deliver(...seqs: number[]): void {
    this.seqs.push(...seqs.map(BigInt));
    for (const wake of this.waiters) wake();
  }

  readonly handler = async (r: ScriptedRequest, gone: AbortSignal) => {
    const after = r.query['after'] === undefined ? 0n : BigInt(r.query['after']);
    const limit = Number(r.query['limit'] ?? 100);
    const wait = Number(r.query['wait_ms'] ?? 0);
    if (wait > 0 && !this.seqs.some((s) => s > after)) {
      this.held++;
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          this.waiters.delete(done);
          resolve();
        };
        const timer = setTimeout(done, wait);
        this.waiters.add(done);
        gone.addEventListener('abort', () => {
          this.released++;
          done();
        });
      });
    }
    const ready = this.seqs.filter((s) => s > after);
    const page = ready.slice(0, limit);
    const upTo = this.seqs.reduce((m, s) => (s > m ? s : m), after);
    const next = page.length > 0 && ready.length > limit ? page[page.length - 1]! : upTo;
    return {
      status: 200,
      body: syncJson(
        page.map((s) => entryJson(s, messageJson(CONV, Number(s), hex(0xa1), `m${s}`))),
        next,
        ready.length > limit,
      ),
    };
  };
}

const seqsOf = (pages: readonly SyncPage[]) => pages.map((p) => p.entries.map((e) => Number(e.seq)));

async function until(what: string, probe: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('QimClient.sync', () => {
  let server: ScriptedServer;
  let client: QimClient;
  let mailbox: FakeMailbox;
  beforeEach(async () => {
    server = await ScriptedServer.start();
    mailbox = new FakeMailbox();
    server.on('GET', PATH, mailbox.handler);
    client = new QimClient({
      writerUrl: server.url,
      mailboxUrl: server.url,
      token: 'secret-token',
      tenantId: T,
      userId: BOB,
      retry: { attempts: 2, baseDelayMs: 5, maxDelayMs: 10 },
    });
  });
  afterEach(() => server.close());

  it('catches up page by page, passing each next_after on, and ends without follow', async () => {
    mailbox.deliver(1, 2, 3, 4, 5);
    const pages: SyncPage[] = [];
    for await (const p of client.sync({ limit: 2 })) pages.push(p);
    expect(seqsOf(pages)).toEqual([[1, 2], [3, 4], [5]]);
    expect(pages.map((p) => [p.after, p.nextAfter, p.hasMore])).toEqual([
      [null, 2n, true],
      [2n, 4n, true],
      [4n, 5n, false],
    ]);
    expect(server.requests.map((r) => r.query)).toEqual([{ limit: '2' }, { after: '2', limit: '2' }, { after: '4', limit: '2' }]);
    const ev = pages[0]!.entries[0]!.events[0]!;
    expect(Buffer.from(ev.message!.body).toString()).toBe('m1');
  });

  it('starts after a given cursor and yields nothing when there is nothing new', async () => {
    mailbox.deliver(1, 2);
    const pages: SyncPage[] = [];
    for await (const p of client.sync({ after: 2n })) pages.push(p);
    expect(pages).toEqual([]);
    expect(server.requests[0]!.query).toEqual({ after: '2' });
  });

  it('follows with long polls: a held request answers as soon as entries arrive', async () => {
    mailbox.deliver(1);
    const ac = new AbortController();
    const pages: SyncPage[] = [];
    const run = (async () => {
      for await (const p of client.sync({ follow: true, waitMs: 10_000, signal: ac.signal })) pages.push(p);
    })();
    await until('a held long poll', () => mailbox.held === 1);
    expect(seqsOf(pages)).toEqual([[1]]);
    const held = server.requests[server.requests.length - 1]!;
    expect(held.query).toEqual({ after: '1', wait_ms: '10000' });
    const delivered = Date.now();
    mailbox.deliver(2, 3);
    await until('the delivered entries', () => pages.length === 2);
    expect(Date.now() - delivered).toBeLessThan(2_000);
    expect(seqsOf(pages)).toEqual([[1], [2, 3]]);
    await until('the next held long poll', () => mailbox.held === 2);
    ac.abort();
    await run;
    expect(server.requests).toHaveLength(3);
  });

  it('falls back to polling when the service does not know wait_ms', async () => {
    const seen: ScriptedRequest[] = [];
    server.on('GET', PATH, (r, gone) => {
      seen.push(r);
      if (r.query['wait_ms'] !== undefined) return { status: 400, body: { code: 'INVALID_INPUT', message: 'request: Unrecognized key: "wait_ms"' } };
      return mailbox.handler(r, gone);
    });
    const ac = new AbortController();
    const pages: SyncPage[] = [];
    const run = (async () => {
      for await (const p of client.sync({ follow: true, pollIntervalMs: 50, signal: ac.signal })) pages.push(p);
    })();
    await until('a few polls', () => seen.length >= 4);
    mailbox.deliver(1);
    await until('the polled entry', () => seqsOf(pages).flat().length === 1);
    ac.abort();
    await run;
    expect(seqsOf(pages)).toEqual([[], [1]]);
    expect(pages[0]!.nextAfter).toBe(0n);
    expect(seen.filter((r) => r.query['wait_ms'] !== undefined)).toHaveLength(1);
  });

  it("lowers the wait to the service's bound when it refuses a longer one", async () => {
    const bounded = (r: ScriptedRequest, gone: AbortSignal) =>
      Number(r.query['wait_ms'] ?? 0) > 3_000
        ? { status: 400, body: { code: 'INVALID_INPUT', message: 'wait_ms: Too big: expected number to be <=3000' } }
        : mailbox.handler(r, gone);
    server.on('GET', PATH, bounded);
    mailbox.deliver(1);
    const ac = new AbortController();
    const run = (async () => {
      for await (const _ of client.sync({ follow: true, waitMs: 60_000, signal: ac.signal })) void _;
    })();
    await until('a held long poll', () => mailbox.held === 1);
    ac.abort();
    await run;
    expect(server.requests.map((r) => r.query['wait_ms'])).toEqual([undefined, '60000', '3000']);
  });

  it("keeps a non-message event's raw payload", async () => {
    const event = { ordinal: 0, event_id: hex(0xe1), payload: Buffer.from('raw').toString('base64'), message: null };
    server.on('GET', PATH, [{ status: 200, body: syncJson([{ seq: '4', created_at: '1', expires_at: '2', events: [event] }], 4n, false) }]);
    const page = await client.syncPage();
    expect(Buffer.from(page.entries[0]!.events[0]!.payload!).toString()).toBe('raw');
    expect(page.entries[0]!.events[0]!.message).toBeNull();
  });

  it('does not spin when a service answers a wait at once with an empty page', async () => {
    server.on('GET', PATH, [{ status: 200, body: syncJson([], 0n, false) }]);
    const ac = new AbortController();
    const run = (async () => {
      for await (const _ of client.sync({ follow: true, waitMs: 5_000, pollIntervalMs: 100, signal: ac.signal })) void _;
    })();
    // Let it poll a few times (however slow the machine), then check the pace: at most one request
    // per poll interval (100 ms) since the start, plus the first; a spinning loop would be far above.
    const t0 = performance.now();
    while (server.requests.length < 3) await new Promise((r) => setTimeout(r, 20));
    ac.abort();
    await run;
    const elapsed = performance.now() - t0;
    expect(server.requests.length).toBeGreaterThanOrEqual(3);
    expect(server.requests.length).toBeLessThanOrEqual(Math.floor(elapsed / 100) + 2);
  });

  it('on 410 CURSOR_EXPIRED calls onResync with the refused cursor, then continues from the start', async () => {
    mailbox.deliver(4, 5, 6);
    server.on('GET', PATH, (r, gone) =>
      r.query['after'] === '2' ? { status: 410, body: { code: 'CURSOR_EXPIRED', message: 'cursor below the trim', resync: true } } : mailbox.handler(r, gone),
    );
    const resyncs: ResyncEvent[] = [];
    const pages: SyncPage[] = [];
    for await (const p of client.sync({ after: 2n, onResync: (e) => void resyncs.push(e) })) pages.push(p);
    expect(resyncs.map((e) => [e.cursor, e.error.code, e.error.status])).toEqual([[2n, 'CURSOR_EXPIRED', 410]]);
    expect(resyncs[0]!.error).toBeInstanceOf(QimResyncRequiredError);
    expect(server.requests.map((r) => r.query['after'])).toEqual(['2', undefined]);
    expect(seqsOf(pages)).toEqual([[4, 5, 6]]);
  });

  it('throws the 410 without onResync, and when the start itself is refused (no endless resync)', async () => {
    server.on('GET', PATH, [{ status: 410, body: { code: 'EPOCH_MISMATCH', message: 'old epoch', resync: true } }]);
    const drain = async (onResync?: (e: ResyncEvent) => void) => {
      for await (const _ of client.sync({ after: 9n, onResync })) void _;
    };
    await expect(drain()).rejects.toMatchObject({ code: 'EPOCH_MISMATCH', status: 410 });
    let calls = 0;
    await expect(drain(() => void calls++)).rejects.toBeInstanceOf(QimResyncRequiredError);
    expect(calls).toBe(1);
    expect(server.requests.map((r) => r.query['after'])).toEqual(['9', '9', undefined]);
  });

  it('ends quietly when aborted during a long poll, releasing the held request', async () => {
    const ac = new AbortController();
    let ended = false;
    const run = (async () => {
      for await (const _ of client.sync({ follow: true, waitMs: 30_000, signal: ac.signal })) void _;
      ended = true;
    })();
    await until('a held long poll', () => mailbox.held === 1);
    ac.abort();
    await run;
    expect(ended).toBe(true);
    await until('the server sees the client go', () => mailbox.released === 1);
  });
});
