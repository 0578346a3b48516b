import net from 'node:net';
import { randomBytes } from 'node:crypto';
import { openCoordination } from '@qim/backends';
import { TOKEN, headers, hex, writerTestApp } from './testing/writer-test-app';
import type { WriterTestApp } from './testing/writer-test-app';

const T = hex(0xa1);
const CONV = hex(0xc1);
const [ALICE, BOB] = [hex(1), hex(2)];
const b64 = (s: string) => Buffer.from(s).toString('base64');
const sendBody = (client: number, text = 'hello') => ({ client_message_id: hex(0x1000 + client), conversation_id: CONV, body: b64(text) });
const membersUrl = `/v1/conversations/${CONV}/members`;

async function withApp(made: Promise<WriterTestApp>, fn: (t: WriterTestApp) => Promise<void>): Promise<void> {
  const t = await made;
  try {
    await t.app.inject({ method: 'PUT', url: membersUrl, headers: headers(T), payload: { members: [ALICE, BOB] } });
    await fn(t);
  } finally {
    await t.app.close();
  }
}

const send = (t: WriterTestApp, user: string, body: object) =>
  t.app.inject({ method: 'POST', url: '/v1/messages', headers: headers(T, user as never), payload: body });

function redisUrl(): string {
  const url = process.env['QIM_REDIS_URL'];
  if (!url) throw new Error('QIM_REDIS_URL is not set: run `tools/infra/infra up redis` and `eval "$(tools/infra/infra env)"` (never skipped)');
  return url;
}

describe('writer: every send has a deadline', () => {
  it('answers 503 UNAVAILABLE past QIM_SEND_DEADLINE_MS and leaves the commit for recovery', () =>
    withApp(writerTestApp({ sendDeadlineMs: 300 }), async (t) => {
      t.publisher.hold();
      const started = Date.now();
      const r = await send(t, ALICE, sendBody(1));
      expect(Date.now() - started).toBeLessThan(3_000);
      expect([r.statusCode, r.headers['retry-after']]).toEqual([503, '1']);
      expect(r.json()).toEqual({ code: 'UNAVAILABLE', message: expect.stringContaining('QIM_SEND_DEADLINE_MS'), request_id: expect.any(String) });
      // Nothing rolled back: the commit is recorded and waits (for its own flight or for recovery).
      const pending = await t.store.scanRecoverableCommits(t.clock.nowMs() + 1n, 10);
      expect(pending.map((s) => [s.state, s.intent.seq])).toEqual([['RECORDED', 1n]]);
      expect((await t.app.inject({ url: '/metrics' })).body).toMatch(/qim_send_deadline_exceeded_total\{service="writer"\} 1/);
      t.publisher.release();
      const retry = await send(t, ALICE, sendBody(1));
      expect([retry.statusCode, retry.json().seq]).toEqual([200, '1']);
      expect(t.publisher.published).toHaveLength(1);
    }));
});

describe('writer: errors say the right thing', () => {
  it('maps Redis failures of membership and leases to 503 UNAVAILABLE without driver text', async () => {
    const coordination = await openCoordination(
      { kind: 'redis', redisUrl: redisUrl(), namespace: `qimfault-${randomBytes(4).toString('hex')}` },
      'owner',
      () => undefined,
    );
    const t = await writerTestApp({ membership: coordination.membership });
    try {
      await coordination.close();
      const answers = [
        await send(t, ALICE, sendBody(1)),
        await t.app.inject({ url: `/v1/conversations/${CONV}/messages`, headers: headers(T, ALICE) }),
        await t.app.inject({ method: 'PUT', url: membersUrl, headers: headers(T), payload: { members: [ALICE] } }),
        await t.app.inject({ method: 'POST', url: '/v1/summaries', headers: headers(T, ALICE), payload: { conversations: [{ conversation_id: CONV }] } }),
      ];
      for (const a of answers) {
        expect(a.statusCode).toBe(503);
        expect(a.json()).toEqual({ code: 'UNAVAILABLE', message: 'temporarily unavailable; retry later', request_id: expect.any(String) });
        expect(a.body).not.toMatch(/Connection|closed|redis|127\.0\.0\.1|163\d\d/i);
      }
      expect(new Set(answers.map((a) => a.json().request_id)).size).toBe(answers.length);
      await expect(coordination.leases.acquire(1, 1_000, 'tok')).rejects.toMatchObject({ code: 'UNAVAILABLE' });
      await expect(coordination.claims.claim({ tenantId: T, senderId: ALICE, clientMessageId: hex(9) }, 1_000)).rejects.toMatchObject({ code: 'UNAVAILABLE' });
      expect(t.publisher.published).toHaveLength(0);
    } finally {
      await t.app.close();
    }
  });

  it('never puts a backend error text in a 5xx body; the request id in the body is the one in the log', () =>
    withApp(writerTestApp(), async (t) => {
      t.publisher.failing = true;
      const r = await send(t, ALICE, sendBody(1));
      expect(r.statusCode).toBe(503);
      expect(Object.keys(r.json()).sort()).toEqual(['code', 'message', 'request_id']);
      expect(r.body).not.toContain('10.9.8.7');
      const line = t.errorLog.find((l) => l['reqId'] === r.json().request_id);
      expect(line).toMatchObject({ level: 50, code: 'UNAVAILABLE', msg: 'request failed' });
      expect(JSON.stringify(line)).toContain('broker 10.9.8.7:9092 unreachable');
    }));

  it('answers 415 UNSUPPORTED_MEDIA_TYPE for a body that is not JSON, and writes nothing', () =>
    withApp(writerTestApp(), async (t) => {
      for (const type of ['text/plain', 'application/x-www-form-urlencoded']) {
        const r = await t.app.inject({
          method: 'POST',
          url: '/v1/messages',
          headers: { ...headers(T, ALICE), 'content-type': type },
          payload: JSON.stringify(sendBody(1)),
        });
        expect([type, r.statusCode, r.json().code]).toEqual([type, 415, 'UNSUPPORTED_MEDIA_TYPE']);
      }
      expect(t.publisher.published).toHaveLength(0);
    }));

  it('gives a replayed send its original answer after the sender left the conversation; a new send from them stays 403', () =>
    withApp(writerTestApp(), async (t) => {
      const first = await send(t, ALICE, sendBody(1));
      expect(first.statusCode).toBe(200);
      await t.app.inject({ method: 'DELETE', url: membersUrl, headers: headers(T), payload: { members: [ALICE] } });
      const replay = await send(t, ALICE, sendBody(1));
      expect(replay.statusCode).toBe(200);
      expect(replay.json()).toEqual({ ...first.json(), replay: true });
      const conflict = await send(t, ALICE, sendBody(1, 'other text'));
      expect(conflict.statusCode).toBe(409);
      const fresh = await send(t, ALICE, sendBody(2));
      expect([fresh.statusCode, fresh.json().code]).toEqual([403, 'FORBIDDEN']);
      expect(t.publisher.published).toHaveLength(1);
      expect(await t.store.scanRecoverableCommits(1n << 62n, 10)).toHaveLength(0);
      const page = (await t.app.inject({ url: `/v1/conversations/${CONV}/messages`, headers: headers(T, BOB) })).json();
      expect(page.items.map((i: { seq: string }) => i.seq)).toEqual(['1']);
    }));

  it('answers a request that arrives while the server closes with 503 in the {code, message} body', async () => {
    const t = await writerTestApp({ listen: true });
    const port = (t.app.server.address() as net.AddressInfo).port;
    const socket = net.connect(port, '127.0.0.1');
    let raw = '';
    socket.on('data', (d) => (raw += d.toString()));
    await new Promise((r) => socket.once('connect', r));
    // A request in flight (its body not yet complete) keeps the connection busy while close starts.
    const body = JSON.stringify({ members: [ALICE] });
    const received = new Promise((r) => t.app.server.once('request', r));
    socket.write(
      `PUT ${membersUrl} HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${TOKEN}\r\nx-qim-tenant: ${T}\r\n` +
        `content-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body.slice(0, 5)}`,
    );
    // The moments are observed, not slept for: the server has the request's head, then it is closing.
    await received;
    const closing = t.app.close();
    while (t.app.server.listening) await new Promise((r) => setImmediate(r));
    socket.write(`${body.slice(5)}GET /v1/conversations/${CONV}/members HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${TOKEN}\r\nx-qim-tenant: ${T}\r\n\r\n`);
    await new Promise((r) => socket.once('close', r));
    await closing;
    const answers = raw.split(/(?=HTTP\/1\.1 )/);
    expect(answers).toHaveLength(2);
    expect(answers[0]).toMatch(/^HTTP\/1\.1 200/);
    expect(answers[1]).toMatch(/^HTTP\/1\.1 503/);
    const refused = JSON.parse(answers[1]!.slice(answers[1]!.indexOf('\r\n\r\n') + 4));
    expect(refused).toEqual({ code: 'UNAVAILABLE', message: 'the server is shutting down; retry on another instance', request_id: expect.any(String) });
  });

  it('bounds how long a client may take to send a request (Fastify requestTimeout)', async () => {
    const t = await writerTestApp();
    try {
      expect(t.app.server.requestTimeout).toBe(30_000);
    } finally {
      await t.app.close();
    }
  });
});
