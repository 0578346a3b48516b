import { TOKEN, headers, hex, writerTestApp } from './testing/writer-test-app';
import { sendAnswerSchema } from './wire/send-body';
import type { WriterTestApp } from './testing/writer-test-app';

const T = hex(0xa1);
const CONV = hex(0xc1);
const [ALICE, BOB, CAROL, MALLORY] = [hex(1), hex(2), hex(3), hex(4)];
const b64 = (s: string) => Buffer.from(s).toString('base64');

function sendBody(client: number, text = 'hello', extra: object = {}) {
  return { client_message_id: hex(0x1000 + client), conversation_id: CONV, body: b64(text), ...extra };
}

describe('writer app', () => {
  let t: WriterTestApp;
  beforeEach(async () => {
    t = await writerTestApp({ maxFanout: 3 });
    await t.app.inject({ method: 'PUT', url: `/v1/conversations/${CONV}/members`, headers: headers(T), payload: { members: [ALICE, BOB, CAROL] } });
  });
  afterEach(() => t.app.close());

  const send = (user: string, body: object) => t.app.inject({ method: 'POST', url: '/v1/messages', headers: headers(T, user as never), payload: body });

  describe('auth', () => {
    it.each([
      ['no header', {}],
      ['wrong token', { authorization: 'Bearer wrong-token-0123456789' }],
      ['basic scheme', { authorization: `Basic ${TOKEN}` }],
    ])('refuses %s on every API route with 401 UNAUTHORIZED', async (_name, auth) => {
      for (const [method, url] of [
        ['POST', '/v1/messages'],
        ['GET', `/v1/conversations/${CONV}/messages`],
        ['POST', '/v1/summaries'],
        ['PUT', `/v1/conversations/${CONV}/members`],
        ['DELETE', `/v1/conversations/${CONV}/members`],
        ['GET', `/v1/conversations/${CONV}/members`],
      ] as const) {
        const r = await t.app.inject({ method, url, headers: { ...auth, 'x-qim-tenant': T, 'x-qim-user': ALICE }, payload: method === 'GET' ? undefined : {} });
        expect([url, r.statusCode, r.json()]).toEqual([url, 401, { code: 'UNAUTHORIZED', message: 'missing or invalid bearer token' }]);
      }
      expect(t.publisher.published).toHaveLength(0);
    });

    it('requires well-formed acting headers behind a valid token', async () => {
      const r = await t.app.inject({
        method: 'POST',
        url: '/v1/messages',
        headers: { authorization: `Bearer ${TOKEN}`, 'x-qim-tenant': T },
        payload: sendBody(1),
      });
      expect(r.statusCode).toBe(400);
      expect(r.json()).toMatchObject({ code: 'INVALID_INPUT', message: expect.stringContaining('x-qim-user') });
      const bad = await t.app.inject({ method: 'POST', url: '/v1/messages', headers: headers('ABC' as never, ALICE), payload: sendBody(1) });
      expect(bad.json().code).toBe('INVALID_INPUT');
    });

    it('leaves ops routes open', async () => {
      expect((await t.app.inject({ url: '/healthz' })).json()).toEqual({ status: 'ok' });
      expect((await t.app.inject({ url: '/readyz' })).statusCode).toBe(200);
      expect((await t.app.inject({ url: '/openapi.json' })).json()).toMatchObject({ openapi: '3.1.0' });
    });
  });

  describe('POST /v1/messages', () => {
    it('commits, publishes once and answers seq/message id', async () => {
      const r = await send(ALICE, sendBody(1));
      expect(r.statusCode).toBe(200);
      const a = r.json();
      expect(a).toMatchObject({ conversation_id: CONV, seq: '1', replay: false });
      expect(a.message_id).toMatch(/^[0-9a-f]{32}$/);
      expect(a.created_at).toMatch(/^\d+$/);
      // The 200 answer is serialized without a per-request check (typedOkSerializer): it must pass its schema as is.
      expect(sendAnswerSchema.strict().parse(a)).toEqual(a);
      expect(t.publisher.published).toHaveLength(1);
      expect(t.publisher.published[0]!.recipients).toEqual([ALICE, BOB, CAROL]);
      expect((await send(BOB, sendBody(2))).json().seq).toBe('2');
    });

    it('answers a replay with the first answer and publishes nothing new', async () => {
      const first = (await send(ALICE, sendBody(1))).json();
      const again = await send(ALICE, sendBody(1));
      expect(again.statusCode).toBe(200);
      expect(again.json()).toEqual({ ...first, replay: true });
      expect(sendAnswerSchema.strict().parse(again.json())).toEqual(again.json());
      expect(t.publisher.published).toHaveLength(1);
    });

    it('answers 409 CONFLICT for the same client id with other content', async () => {
      await send(ALICE, sendBody(1, 'one'));
      const r = await send(ALICE, sendBody(1, 'two'));
      expect(r.statusCode).toBe(409);
      expect(r.json().code).toBe('CONFLICT');
    });

    it('answers 403 FORBIDDEN for a non-member and writes nothing', async () => {
      const r = await send(MALLORY, sendBody(1));
      expect(r.statusCode).toBe(403);
      expect(r.json().code).toBe('FORBIDDEN');
      expect(t.publisher.published).toHaveLength(0);
      expect(await t.store.scanRecoverableCommits(1n << 62n, 10)).toHaveLength(0);
    });

    it.each([
      ['a non-hex id', { client_message_id: 'XYZ' }],
      ['an unknown kind', { kind: 'shout' }],
      ['non-base64 body', { body: '***' }],
      ['an unknown retention', { retention: { kind: 'forever' } }],
      ['ephemeral without ttl', { retention: { kind: 'ephemeral' } }],
      ['a ttl out of range', { retention: { kind: 'ephemeral', ttl_seconds: 0 } }],
      ['an unknown field', { sender_id: ALICE }],
    ])('answers 400 INVALID_INPUT for %s', async (_name, patch) => {
      const r = await send(ALICE, { ...sendBody(1), ...patch });
      expect(r.statusCode).toBe(400);
      expect(r.json().code).toBe('INVALID_INPUT');
      expect(t.publisher.published).toHaveLength(0);
    });

    it('accepts every retention class and kind', async () => {
      for (const [i, retention] of [{ kind: 'ephemeral', ttl_seconds: 60 }, { kind: 'tenant_custom' }, { kind: 'compliance_hold' }].entries()) {
        const r = await send(ALICE, sendBody(10 + i, 'x', { retention, kind: 'edited', control: true, content_type: 'application/x-test' }));
        expect(r.statusCode).toBe(200);
      }
    });

    it('caps the body: 64 KiB decoded passes the schema, larger is refused', async () => {
      const over = await send(ALICE, sendBody(1, 'x'.repeat(65_537)));
      expect(over.statusCode).toBe(400);
      const limit = await t.app.inject({
        method: 'POST',
        url: '/v1/messages',
        headers: headers(T, ALICE),
        payload: { ...sendBody(2), pad: 'y'.repeat(200_000) },
      });
      expect(limit.statusCode).toBe(413);
      expect(limit.json().code).toBe('PAYLOAD_TOO_LARGE');
    });

    it('refuses malformed JSON as INVALID_INPUT', async () => {
      const r = await t.app.inject({
        method: 'POST',
        url: '/v1/messages',
        headers: { ...headers(T, ALICE), 'content-type': 'application/json' },
        payload: '{',
      });
      expect(r.statusCode).toBe(400);
      expect(r.json().code).toBe('INVALID_INPUT');
    });

    it('never answers 200 when the outbox is down: 503 UNAVAILABLE, then a retry completes the same commit', async () => {
      t.publisher.failing = true;
      const r = await send(ALICE, sendBody(1));
      expect(r.statusCode).toBe(503);
      expect(r.json().code).toBe('UNAVAILABLE');
      t.publisher.failing = false;
      const retry = await send(ALICE, sendBody(1));
      expect(retry.statusCode).toBe(200);
      expect(retry.json().seq).toBe('1');
    });

    it('stops sending when the writer lease is lost', async () => {
      t.leaseHeld = false;
      const r = await send(ALICE, sendBody(1));
      expect(r.statusCode).toBe(503);
      expect(r.json().code).toBe('UNAVAILABLE');
    });

    it('counts commits by outcome in /metrics', async () => {
      await send(ALICE, sendBody(1));
      await send(ALICE, sendBody(1));
      await send(MALLORY, sendBody(2));
      const text = (await t.app.inject({ url: '/metrics' })).body;
      expect(text).toMatch(/qim_commits_total\{outcome="committed",service="writer"\} 1/);
      expect(text).toMatch(/qim_commits_total\{outcome="replay",service="writer"\} 1/);
      expect(text).toMatch(/qim_commits_total\{outcome="forbidden",service="writer"\} 1/);
      expect(text).toContain('qim_http_request_duration_seconds_bucket');
    });

    it("exposes its own metrics and the ones both services have in /metrics, none of the mailbox's", async () => {
      const names = [...(await t.app.inject({ url: '/metrics' })).body.matchAll(/^# TYPE (qim_\w+) /gm)].map((m) => m[1]);
      for (const own of ['qim_commits_total', 'qim_recovery_actions_total', 'qim_commit_step_seconds', 'qim_writer_lease_held']) expect(names).toContain(own);
      for (const shared of ['qim_http_request_duration_seconds', 'qim_kafka_requests_total', 'qim_read_budget_refused_total', 'qim_read_budget_shrunk_total'])
        expect(names).toContain(shared);
      for (const mailbox of [
        'qim_shard_frontier',
        'qim_dispatch_lag_seconds',
        'qim_router_dispatches_total',
        'qim_sync_scans_total',
        'qim_poison_records_total',
        'qim_consumer_joins_total',
      ]) {
        expect(names).not.toContain(mailbox);
      }
    });

    it('times each commit step in /metrics: a new send all four, a replay only its reserve', async () => {
      await send(ALICE, sendBody(1));
      await send(ALICE, sendBody(1));
      const text = (await t.app.inject({ url: '/metrics' })).body;
      expect(text).toMatch(/qim_commit_step_seconds_count\{service="writer",step="reserve"\} 2/);
      for (const step of ['record', 'publish', 'commit'])
        expect(text).toMatch(new RegExp(`qim_commit_step_seconds_count\\{service="writer",step="${step}"\\} 1`));
    });
  });

  describe('GET /v1/conversations/:id/messages', () => {
    beforeEach(async () => {
      for (let i = 1; i <= 3; i++) await send(ALICE, sendBody(i, `m${i}`));
    });

    it('pages older from the newest', async () => {
      const r = await t.app.inject({ url: `/v1/conversations/${CONV}/messages?max_items=2`, headers: headers(T, BOB) });
      expect(r.statusCode).toBe(200);
      const p = r.json();
      expect(p.items.map((i: { seq: string }) => i.seq)).toEqual(['3', '2']);
      expect(p).toMatchObject({ has_more: true, next_anchor: '2', direction: 'older' });
      expect(Buffer.from(p.items[0].body, 'base64').toString()).toBe('m3');
      expect(p.items[0]).toMatchObject({ sender_id: ALICE, kind: 'normal', retention: { kind: 'default' } });
      const next = (await t.app.inject({ url: `/v1/conversations/${CONV}/messages?max_items=2&anchor=2`, headers: headers(T, BOB) })).json();
      expect(next.items.map((i: { seq: string }) => i.seq)).toEqual(['1']);
    });

    it('pages newer from an anchor', async () => {
      const p = (await t.app.inject({ url: `/v1/conversations/${CONV}/messages?direction=newer&anchor=1`, headers: headers(T, BOB) })).json();
      expect(p.items.map((i: { seq: string }) => i.seq)).toEqual(['2', '3']);
    });

    it('refuses a non-member with 403 and bad queries with 400', async () => {
      const r = await t.app.inject({ url: `/v1/conversations/${CONV}/messages`, headers: headers(T, MALLORY) });
      expect([r.statusCode, r.json().code]).toEqual([403, 'FORBIDDEN']);
      for (const q of ['direction=up', 'max_items=0', 'max_items=5000', 'anchor=-1', 'anchor=abc', 'extra=1']) {
        const bad = await t.app.inject({ url: `/v1/conversations/${CONV}/messages?${q}`, headers: headers(T, BOB) });
        expect([q, bad.statusCode, bad.json().code]).toEqual([q, 400, 'INVALID_INPUT']);
      }
      const badId = await t.app.inject({ url: '/v1/conversations/nothex/messages', headers: headers(T, BOB) });
      expect(badId.statusCode).toBe(400);
    });
  });

  describe('POST /v1/summaries', () => {
    it('answers head seq, last and unread for the acting user', async () => {
      await send(ALICE, sendBody(1, 'a'));
      await send(ALICE, sendBody(2, 'b'));
      await send(BOB, sendBody(3, 'c'));
      const r = await t.app.inject({
        method: 'POST',
        url: '/v1/summaries',
        headers: headers(T, BOB),
        payload: { conversations: [{ conversation_id: CONV, read_seq: '1' }] },
      });
      expect(r.statusCode).toBe(200);
      const [s] = r.json().summaries;
      expect(s).toMatchObject({ conversation_id: CONV, head_seq: '3', unread: 1, precise: true });
      expect(s.last.seq).toBe('3');
    });

    it('refuses conversations the user is not in, and bad bodies', async () => {
      const r = await t.app.inject({
        method: 'POST',
        url: '/v1/summaries',
        headers: headers(T, MALLORY),
        payload: { conversations: [{ conversation_id: CONV }] },
      });
      expect(r.statusCode).toBe(403);
      const bad = await t.app.inject({ method: 'POST', url: '/v1/summaries', headers: headers(T, BOB), payload: { conversations: [] } });
      expect(bad.json().code).toBe('INVALID_INPUT');
    });
  });

  describe('members', () => {
    it('adds, lists and removes; the fan-out cap is a clear 422', async () => {
      const url = `/v1/conversations/${CONV}/members`;
      const over = await t.app.inject({ method: 'PUT', url, headers: headers(T), payload: { members: [MALLORY] } });
      expect(over.statusCode).toBe(422);
      expect(over.json()).toMatchObject({ code: 'FANOUT_LIMIT', message: expect.stringContaining('QIM_MAX_FANOUT') });
      const del = await t.app.inject({ method: 'DELETE', url, headers: headers(T), payload: { members: [CAROL] } });
      expect(del.json()).toEqual({ conversation_id: CONV, members: 2 });
      const list = await t.app.inject({ url, headers: headers(T) });
      expect(list.json().members).toEqual([ALICE, BOB]);
      expect((await send(CAROL, sendBody(1))).statusCode).toBe(403);
      const bad = await t.app.inject({ method: 'PUT', url, headers: headers(T), payload: { members: ['zz'] } });
      expect(bad.statusCode).toBe(400);
    });
  });

  it('answers unknown routes with 404 NOT_FOUND in the error shape', async () => {
    const r = await t.app.inject({ url: '/v1/nothing', headers: headers(T, ALICE) });
    expect(r.statusCode).toBe(404);
    expect(r.json().code).toBe('NOT_FOUND');
  });

  it('answers 503 on /readyz when a check fails: the status alone without a token, the details with it', async () => {
    const u = await writerTestApp({ readiness: [{ name: 'store', check: async () => ({ ok: false, detail: 'no quorum' }) }] });
    const pub = await u.app.inject({ url: '/readyz' });
    expect([pub.statusCode, pub.json(), pub.headers['retry-after']]).toEqual([503, { status: 'not_ready' }, '1']);
    const r = await u.app.inject({ url: '/readyz', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(r.statusCode).toBe(503);
    expect(r.json()).toEqual({ status: 'not_ready', checks: { store: { ok: false, detail: 'no quorum' } } });
    await u.app.close();
  });
});
