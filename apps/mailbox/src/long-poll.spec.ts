import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { shardOf } from '@qim/store-core';
import { specMessage } from '@qim/mailbox-runtime/testing';
import { SHARDS, SYNC_MAX_WAIT_MS, headers, hex, mailboxTestApp } from './testing/mailbox-test-app';
import type { MailboxTestApp } from './testing/mailbox-test-app';

const T = hex(0xa1);
const users = Array.from({ length: 8 }, (_, i) => hex(i + 1));
const alice = users[0]!;
// Another user on alice's shard: its pages advance the same frontier.
const neighbour = users.find((u) => u !== alice && shardOf(T, u, SHARDS) === shardOf(T, alice, SHARDS))!;
const shard = shardOf(T, alice, SHARDS);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, probe: () => boolean, timeoutMs = 2_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

/** A sync through the app, with how long it took to answer (ms). */
function timedSync(t: MailboxTestApp, user: string, query: string) {
  const started = Date.now();
  return t.app.inject({ url: `/v1/mailboxes/${user}/entries${query}`, headers: headers(T, user as never) }).then((r) => ({ r, ms: Date.now() - started }));
}

describe('long-poll sync (wait_ms)', () => {
  let t: MailboxTestApp;
  afterEach(() => t.app.close());

  const poll = (user: string, query: string) => timedSync(t, user, query);

  it('returns as soon as a page gives the user an entry, not at wait_ms', async () => {
    t = await mailboxTestApp();
    const pending = poll(alice, `?wait_ms=${SYNC_MAX_WAIT_MS}`);
    await until('the sync to wait', () => t.board.waiterCount(shard) === 1);
    await t.deliver(specMessage(T, neighbour, 1n, t.clock.nowMs()), [alice]);
    const { r, ms } = await pending;
    expect(r.statusCode).toBe(200);
    expect(r.json().entries.map((e: { events: { message: { seq: string } }[] }) => e.events[0]!.message.seq)).toEqual(['1']);
    // Answered before its wait ended (a sync that waited it out answers at ≥ wait_ms, entry or not);
    // no tighter bound: on a loaded machine the wake-up took 1.5 s.
    expect(ms).toBeLessThan(SYNC_MAX_WAIT_MS);
    expect(t.board.waiterCount()).toBe(0);
  });

  it('keeps waiting through pages that give the user nothing', async () => {
    t = await mailboxTestApp();
    let done = false;
    const pending = poll(alice, '?wait_ms=5000').then((x) => ((done = true), x));
    await until('the sync to wait', () => t.board.waiterCount(shard) === 1);
    await t.deliver(specMessage(T, alice, 1n, t.clock.nowMs()), [neighbour]);
    await sleep(50);
    expect([done, t.board.waiterCount(shard)]).toEqual([false, 1]);
    await t.deliver(specMessage(T, neighbour, 2n, t.clock.nowMs()), [alice, neighbour]);
    const { r } = await pending;
    expect(r.json().entries).toHaveLength(1);
  });

  it('answers an empty page at wait_ms when nothing arrives, with the cursor at up_to', async () => {
    t = await mailboxTestApp();
    const { r, ms } = await poll(alice, '?wait_ms=300');
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({ entries: [], has_more: false });
    expect(r.json().next_after).toBe(r.json().up_to);
    expect(ms).toBeGreaterThanOrEqual(290);
    expect(ms).toBeLessThan(2_000);
  });

  it('answers at once when entries are already visible', async () => {
    t = await mailboxTestApp();
    await t.deliver(specMessage(T, alice, 1n, t.clock.nowMs()), [alice]);
    // "At once" is "without waiting": the sync never waits on the board (not a guess of how fast an answer is).
    const waits = jest.spyOn(t.board, 'subscribe');
    const { r } = await poll(alice, '?wait_ms=5000');
    expect(r.json().entries).toHaveLength(1);
    expect(waits).not.toHaveBeenCalled();
  });

  it('refuses a wait above QIM_SYNC_MAX_WAIT_MS with 400 and accepts the maximum', async () => {
    t = await mailboxTestApp();
    const above = await poll(alice, `?wait_ms=${SYNC_MAX_WAIT_MS + 1}`);
    expect([above.r.statusCode, above.r.json().code]).toEqual([400, 'INVALID_INPUT']);
    await t.deliver(specMessage(T, alice, 1n, t.clock.nowMs()), [alice]);
    expect((await poll(alice, `?wait_ms=${SYNC_MAX_WAIT_MS}`)).r.statusCode).toBe(200);
  });

  it('wakes by re-reading the frontier when another process applies the shard', async () => {
    t = await mailboxTestApp({ ownShards: false, pollMs: 50 });
    const pending = poll(alice, '?wait_ms=5000');
    await until('the sync to wait', () => t.board.waiterCount(shard) === 1);
    await t.applyElsewhere(specMessage(T, neighbour, 1n, t.clock.nowMs()), [alice]);
    const { r, ms } = await pending;
    expect(r.json().entries).toHaveLength(1);
    // Woken before its wait ended (a wait that ran out answers at ≥ wait_ms).
    expect(ms).toBeLessThan(5_000);
  });
});

describe('a sync whose cursor the process proves current', () => {
  let t: MailboxTestApp;
  afterEach(() => t.app.close());

  const poll = (user: string, query: string) => t.app.inject({ url: `/v1/mailboxes/${user}/entries${query}`, headers: headers(T, user as never) });
  const seqsOf = (r: { json(): { entries: { events: { message: { seq: string } }[] }[] } }) => r.json().entries.map((e) => e.events[0]!.message.seq);

  it('waits without a store read, through pages for others, and reads once the page that gives the user an entry', async () => {
    t = await mailboxTestApp();
    await t.deliver(specMessage(T, alice, 1n, t.clock.nowMs()), [alice]);
    const first = await poll(alice, '');
    expect(seqsOf(first)).toEqual(['1']);
    const cursor = first.json().next_after as string;
    const before = t.scans();
    const pending = poll(alice, `?after=${cursor}&wait_ms=5000`);
    await until('the sync to wait', () => t.board.waiterCount(shard) === 1);
    await t.deliver(specMessage(T, neighbour, 2n, t.clock.nowMs()), [neighbour]);
    await sleep(20);
    expect(t.scans() - before).toBe(0);
    await t.deliver(specMessage(T, neighbour, 3n, t.clock.nowMs()), [alice, neighbour]);
    const r = await pending;
    expect(seqsOf(r)).toEqual(['3']);
    expect(t.scans() - before).toBe(1);
    // both kinds are counted for operators: the first sync and the wake-up read, the long poll's start did not
    const metrics = (await t.app.inject({ url: '/metrics' })).body;
    expect(metrics).toMatch(/^qim_sync_scans_total\{result="read",service="mailbox"\} 2$/m);
    expect(metrics).toMatch(/^qim_sync_scans_total\{result="skipped",service="mailbox"\} 1$/m);
  });

  it('answers an empty page at wait_ms without a read, keeping the cursor', async () => {
    t = await mailboxTestApp();
    await t.deliver(specMessage(T, alice, 1n, t.clock.nowMs()), [alice]);
    const cursor = (await poll(alice, '')).json().next_after as string;
    await t.deliver(specMessage(T, neighbour, 2n, t.clock.nowMs()), [neighbour]);
    const before = t.scans();
    const r = await poll(alice, `?after=${cursor}&wait_ms=100`);
    expect(r.json()).toMatchObject({ entries: [], has_more: false, next_after: cursor });
    expect(BigInt(r.json().up_to as string)).toBeGreaterThan(BigInt(cursor));
    expect(t.scans() - before).toBe(0);
  });

  it('reads when a page gave the user an entry after the cursor, or another process applies the shard', async () => {
    t = await mailboxTestApp();
    await t.deliver(specMessage(T, alice, 1n, t.clock.nowMs()), [alice]);
    const cursor = (await poll(alice, '')).json().next_after as string;
    await t.deliver(specMessage(T, neighbour, 2n, t.clock.nowMs()), [alice]);
    expect(seqsOf(await poll(alice, `?after=${cursor}&wait_ms=5000`))).toEqual(['2']);
    // a process that does not apply the shard knows nothing of its pages: every sync reads
    const other = await mailboxTestApp({ ownShards: false, pollMs: 20 });
    try {
      const start = (await other.app.inject({ url: `/v1/mailboxes/${alice}/entries`, headers: headers(T, alice) })).json().next_after as string;
      await other.applyElsewhere(specMessage(T, alice, 1n, other.clock.nowMs()), [alice]);
      const before = other.scans();
      const r = await other.app.inject({ url: `/v1/mailboxes/${alice}/entries?after=${start}`, headers: headers(T, alice) });
      expect(r.json().entries).toHaveLength(1);
      expect(other.scans() - before).toBe(1);
    } finally {
      await other.app.close();
    }
  });
});

describe('a sync that repeats the cursor of its last answer is held (QIM_SYNC_REPEAT_HOLD_MS)', () => {
  let t: MailboxTestApp;
  afterEach(() => t.app.close());

  const poll = (user: string, query: string) => timedSync(t, user, query);
  /** The cursor alice's answer with her one entry gave. */
  const currentCursor = async (): Promise<string> => {
    await t.deliver(specMessage(T, alice, 1n, t.clock.nowMs()), [alice]);
    const first = await poll(alice, '');
    expect(first.r.json().entries).toHaveLength(1);
    return first.r.json().next_after as string;
  };

  it('holds a sync that finds nothing after the cursor of the last answer until the hold has passed since that answer, without a store read', async () => {
    // A hold far longer than the steps between an answer and the check that the repeat still waits
    // (a 400 ms hold left a loaded machine 300 ms for them).
    t = await mailboxTestApp({ repeatHoldMs: 1_500 });
    const cursor = await currentCursor();
    const before = t.scans();
    for (let i = 0; i < 2; i++) {
      let done = false;
      const repeat = poll(alice, `?after=${cursor}`).then((x) => ((done = true), x));
      await until('the repeat to be held', () => t.board.waiterCount(shard) === 1);
      await sleep(200);
      expect(done).toBe(false);
      const { r, ms } = await repeat;
      expect(r.statusCode).toBe(200);
      expect(r.json()).toMatchObject({ entries: [], has_more: false, next_after: cursor });
      expect(ms).toBeGreaterThanOrEqual(1_000);
      expect(ms).toBeLessThan(5_000);
    }
    expect(t.scans() - before).toBe(0);
    expect((await t.app.inject({ url: '/metrics' })).body).toMatch(/^qim_sync_held_total\{service="mailbox"\} 2$/m);
  });

  it('answers a held sync at once when a page gives the user an entry', async () => {
    t = await mailboxTestApp({ repeatHoldMs: 5_000 });
    const cursor = await currentCursor();
    const repeat = poll(alice, `?after=${cursor}`);
    await until('the repeat to be held', () => t.board.waiterCount(shard) === 1);
    await t.deliver(specMessage(T, neighbour, 2n, t.clock.nowMs()), [alice]);
    const { r, ms } = await repeat;
    expect(r.json().entries.map((e: { events: { message: { seq: string } }[] }) => e.events[0]!.message.seq)).toEqual(['2']);
    // Answered before the hold ended (a hold that ran out answers at ≥ 5 s).
    expect(ms).toBeLessThan(5_000);
  });

  it('does not hold a sync with another cursor, a first sync, another user, a repeat after the hold, or any sync when the hold is 0', async () => {
    // Not held = the hold counter stays 0 (the service counts every sync it holds), not a guess of how fast an answer is.
    const heldTotal = async (): Promise<number> =>
      Number(/^qim_sync_held_total\{service="mailbox"\} (\d+)$/m.exec((await t.app.inject({ url: '/metrics' })).body)?.[1]);
    t = await mailboxTestApp({ repeatHoldMs: 5_000 });
    const cursor = await currentCursor();
    // another device of alice's, without a cursor yet: its first page has the entry
    const other = await poll(alice, '');
    expect(other.r.json().entries).toHaveLength(1);
    // a cursor no answer gave, with nothing after it: one offset further, past a page for the neighbour
    await t.deliver(specMessage(T, neighbour, 2n, t.clock.nowMs()), [neighbour]);
    const further = await poll(alice, `?after=${BigInt(cursor) + 1n}`);
    expect(further.r.json()).toMatchObject({ entries: [], next_after: (BigInt(cursor) + 1n).toString() });
    // a neighbour's sync is not held by alice's answers
    expect((await poll(neighbour, '')).r.statusCode).toBe(200);
    expect(await heldTotal()).toBe(0);
    await t.app.close();
    // once the hold has passed since the last answer, a repeat is answered at once
    t = await mailboxTestApp({ repeatHoldMs: 1_000 });
    const c1 = await currentCursor();
    await sleep(1_100);
    expect((await poll(alice, `?after=${c1}`)).r.statusCode).toBe(200);
    expect(await heldTotal()).toBe(0);
    await t.app.close();
    t = await mailboxTestApp({ repeatHoldMs: 0 });
    const c0 = await currentCursor();
    for (let i = 0; i < 3; i++) expect((await poll(alice, `?after=${c0}`)).r.statusCode).toBe(200);
    expect(await heldTotal()).toBe(0);
  });
});

describe('long-poll over a real connection', () => {
  let t: MailboxTestApp;
  let base: string;
  beforeEach(async () => {
    t = await mailboxTestApp();
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  });
  afterEach(() => t.app.close());

  it('ends the wait when the client disconnects', async () => {
    const req = http.get(`${base}/v1/mailboxes/${alice}/entries?wait_ms=5000`, { headers: headers(T, alice) });
    req.on('error', () => undefined);
    await until('the sync to wait', () => t.board.waiterCount(shard) === 1);
    req.destroy();
    await until('the wait to end', () => t.board.waiterCount() === 0, 1_000);
  });

  it('answers waiting syncs at once when the service closes', async () => {
    const started = Date.now();
    const pending = fetch(`${base}/v1/mailboxes/${alice}/entries?wait_ms=5000`, { headers: headers(T, alice) });
    await until('the sync to wait', () => t.board.waiterCount(shard) === 1);
    await t.app.close();
    const r = await pending;
    expect(r.status).toBe(200);
    expect(((await r.json()) as { entries: unknown[] }).entries).toEqual([]);
    // Answered by the close, before its wait ended.
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
