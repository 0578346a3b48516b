import { EventEmitter } from 'node:events';
import http from 'node:http';
import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { composeMailboxSeq, epochStartSeq } from '@qim/store-core';
import { specMessage } from '@qim/mailbox-runtime/testing';
import { EPOCH, headers, hex, mailboxTestApp } from './testing/mailbox-test-app';
import type { MailboxTestApp } from './testing/mailbox-test-app';
import { drained } from './routes/stream-route';

const T = hex(0xa1);
const alice = hex(1);
const bob = hex(2);

interface Event {
  readonly event: string;
  readonly data: unknown;
}

/**
 * A streamed sync over a real socket: the answer's status and headers, the events as they arrive
 * (`next()` waits for the next one), and whether the service ended the response.
 */
interface OpenStream {
  readonly status: number;
  readonly contentType: string;
  /** The body, when the answer is not a stream (an error answer). */
  json(): Promise<unknown>;
  next(timeoutMs?: number): Promise<Event>;
  ended(): Promise<void>;
  close(): void;
}

function openStream(base: string, user: string, query = '', as = user): Promise<OpenStream> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${base}/v1/mailboxes/${user}/stream${query}`, { headers: headers(T, as as never) }, (res) => {
      res.setEncoding('utf8');
      let buffer = '';
      const events: Event[] = [];
      const waiting: ((e: Event) => void)[] = [];
      let done = false;
      const finished = new Promise<void>((r) => res.once('close', () => ((done = true), r())));
      res.on('data', (chunk: string) => {
        buffer += chunk;
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const lines = buffer.slice(0, end).split('\n');
          buffer = buffer.slice(end + 2);
          const name = lines.find((l) => l.startsWith('event: '))?.slice(7) ?? 'message';
          const data = lines.find((l) => l.startsWith('data: '))?.slice(6) ?? 'null';
          const e = { event: name, data: JSON.parse(data) as unknown };
          const w = waiting.shift();
          if (w) w(e);
          else events.push(e);
        }
      });
      resolve({
        status: res.statusCode ?? 0,
        contentType: String(res.headers['content-type']),
        json: async () => {
          await finished;
          return JSON.parse(buffer) as unknown;
        },
        next: (timeoutMs = 3_000) => {
          const e = events.shift();
          if (e) return Promise.resolve(e);
          if (done) return Promise.reject(new Error('the stream ended'));
          return new Promise<Event>((ok, fail) => {
            const timer = setTimeout(() => fail(new Error(`no event within ${timeoutMs} ms`)), timeoutMs);
            waiting.push((ev) => {
              clearTimeout(timer);
              ok(ev);
            });
          });
        },
        ended: () => finished,
        close: () => req.destroy(),
      });
    });
    req.once('error', reject);
  });
}

type Page = { entries: { seq: string; events: { message: { seq: string } }[] }[]; next_after: string; has_more: boolean; up_to: string };
const seqsOf = (e: Event): string[] => (e.data as Page).entries.map((x) => x.events[0]!.message.seq);

describe('GET /v1/mailboxes/:user/stream (streamed sync)', () => {
  let t: MailboxTestApp;
  let base: string;
  const streams: OpenStream[] = [];

  async function start(opts: Parameters<typeof mailboxTestApp>[0] = {}): Promise<void> {
    t = await mailboxTestApp(opts);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  }
  const truncate = (user: string, before: string) =>
    t.app.inject({ method: 'POST', url: `/v1/mailboxes/${user}/truncate`, headers: headers(T, user as never), payload: { before } });
  const open = async (user: string, query = '', as = user): Promise<OpenStream> => {
    const s = await openStream(base, user, query, as);
    streams.push(s);
    return s;
  };

  afterEach(async () => {
    for (const s of streams.splice(0)) s.close();
    await t.app.close();
  });

  it('sends the first page at once, then a page for each delivery, each read after the previous next_after', async () => {
    await start();
    await t.deliver(specMessage(T, bob, 1n, t.clock.nowMs()), [alice, bob]);
    const s = await open(alice);
    expect([s.status, s.contentType]).toEqual([200, 'text/event-stream; charset=utf-8']);
    const first = await s.next();
    expect([first.event, seqsOf(first)]).toEqual(['page', ['1']]);
    for (const seq of [2n, 3n]) await t.deliver(specMessage(T, bob, seq, t.clock.nowMs()), [alice, bob]);
    const got: string[] = [];
    let last = first.data as Page;
    while (got.length < 2) {
      const e = await s.next();
      expect(e.event).toBe('page');
      const page = e.data as Page;
      // Each page continues exactly where the previous one ended: nothing skipped, nothing twice.
      if (page.entries.length > 0) expect(BigInt(page.entries[0]!.seq)).toBeGreaterThan(BigInt(last.next_after));
      got.push(...seqsOf(e));
      last = page;
    }
    expect(got).toEqual(['2', '3']);
    expect(last.next_after).toBe(last.entries.at(-1)!.seq);
  });

  it('starts after the given cursor and answers the same pages as GET …/entries', async () => {
    await start();
    for (const seq of [1n, 2n, 3n]) await t.deliver(specMessage(T, bob, seq, t.clock.nowMs()), [alice]);
    const all = (await t.app.inject({ url: `/v1/mailboxes/${alice}/entries`, headers: headers(T, alice) })).json() as Page;
    const after = all.entries[0]!.seq;
    const polled = await t.app.inject({ url: `/v1/mailboxes/${alice}/entries?after=${after}&limit=1`, headers: headers(T, alice) });
    const s = await open(alice, `?after=${after}&limit=1`);
    const e = await s.next();
    expect(e.data).toEqual(polled.json());
    expect(seqsOf(await s.next())).toEqual(['3']);
  });

  it('refuses before streaming: 410 for a cursor below the trim, 403 for another user, 400 for a bad query', async () => {
    await start();
    for (const seq of [1n, 2n]) await t.deliver(specMessage(T, bob, seq, t.clock.nowMs()), [alice]);
    const trimTo = composeMailboxSeq(EPOCH, 2n).toString();
    expect((await truncate(alice, trimTo)).statusCode).toBe(200);
    const expired = await open(alice, `?after=${epochStartSeq(EPOCH)}`);
    expect([expired.status, await expired.json()]).toEqual([410, expect.objectContaining({ code: 'CURSOR_EXPIRED', resync: true })]);
    const other = await open(alice, '', bob);
    expect([other.status, await other.json()]).toEqual([403, expect.objectContaining({ code: 'FORBIDDEN' })]);
    for (const q of ['?wait_ms=10', '?limit=0', '?limit=51', '?after=x']) {
      const bad = await open(alice, q);
      expect([q, bad.status, ((await bad.json()) as { code: string }).code]).toEqual([q, 400, 'INVALID_INPUT']);
    }
  });

  it('ends with an error event when a later read is refused (the trim raised past the cursor), and the response ends', async () => {
    await start();
    await t.deliver(specMessage(T, bob, 1n, t.clock.nowMs()), [alice]);
    const s = await open(alice);
    expect(seqsOf(await s.next())).toEqual(['1']);
    // Another device of alice truncates above this stream's cursor; the next entry wakes the stream's read.
    await t.deliver(specMessage(T, bob, 2n, t.clock.nowMs()), [bob]);
    const trimTo = composeMailboxSeq(EPOCH, 3n).toString();
    expect((await truncate(alice, trimTo)).statusCode).toBe(200);
    await t.deliver(specMessage(T, bob, 4n, t.clock.nowMs()), [alice]);
    const e = await s.next();
    expect(e).toEqual({ event: 'error', data: expect.objectContaining({ status: 410, code: 'CURSOR_EXPIRED', resync: true }) });
    await s.ended();
  });

  it('ends with an end event carrying the cursor after QIM_SYNC_STREAM_MAX_MS, and counts it', async () => {
    await start({ syncStreamMaxMs: 300 });
    await t.deliver(specMessage(T, bob, 1n, t.clock.nowMs()), [alice]);
    const s = await open(alice);
    const first = await s.next();
    const end = await s.next(5_000);
    expect(end).toEqual({ event: 'end', data: { next_after: (first.data as Page).next_after } });
    await s.ended();
    const text = await t.metrics.registry.metrics();
    expect(text).toMatch(/qim_sync_streams_ended_total\{reason="life"[^}]*\} 1/);
    expect(text).toMatch(/qim_sync_streams_open(\{[^}]*\})? 0/);
  });

  it('ends open streams with an end event when the service closes, without holding the close for a wait', async () => {
    await start();
    const s = await open(alice);
    await s.next();
    const closing = t.app.close();
    expect((await s.next()).event).toBe('end');
    await s.ended();
    await closing;
  });

  it('lets a client that goes away end its stream (counted as gone)', async () => {
    await start();
    const s = await open(alice);
    await s.next();
    s.close();
    const deadline = Date.now() + 3_000;
    while (!/qim_sync_streams_ended_total\{reason="gone"[^}]*\} 1/.test(await t.metrics.registry.metrics())) {
      if (Date.now() > deadline) throw new Error('the stream was not ended as gone');
      await new Promise((r) => setTimeout(r, 10));
    }
  });

  it('is refused while long polls are off (QIM_SYNC_MAX_WAIT_MS=0): a stream would have no wait between pages', async () => {
    await start({ syncMaxWaitMs: 0 });
    const s = await open(alice);
    expect([s.status, ((await s.json()) as { code: string }).code]).toEqual([400, 'INVALID_INPUT']);
  });
});

describe('drained (a stream whose socket buffer is full)', () => {
  // Enough of a ServerResponse for `drained`: its events and whether it is destroyed.
  const response = (destroyed = false) => Object.assign(new EventEmitter(), { destroyed }) as unknown as ServerResponse;

  it('is true once the response drains, false when it closes or the wait passes first, at once when already destroyed', async () => {
    // Each answer must come without waiting out the long bound: a race against 500 ms tells it apart.
    const soon = (p: Promise<boolean>) => Promise.race([p, new Promise((r) => setTimeout(() => r('still waiting'), 500))]);
    const draining = response();
    const a = soon(drained(draining, 60_000));
    draining.emit('drain');
    expect(await a).toBe(true);
    const closing = response();
    const b = soon(drained(closing, 60_000));
    closing.emit('close');
    expect(await b).toBe(false);
    expect(await soon(drained(response(), 20))).toBe(false);
    expect(await soon(drained(response(true), 60_000))).toBe(false);
    expect([draining.listenerCount('drain'), draining.listenerCount('close'), closing.listenerCount('drain')]).toEqual([0, 0, 0]);
  });
});
