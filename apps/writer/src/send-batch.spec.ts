import { sendBatchAnswerSchema } from './wire/send-batch-body';
import { headers, hex, writerTestApp } from './testing/writer-test-app';
import type { WriterTestApp } from './testing/writer-test-app';

const T = hex(0xa1);
const CONV = hex(0xc1);
const [ALICE, BOB, MALLORY] = [hex(1), hex(2), hex(4)];
const b64 = (s: string) => Buffer.from(s).toString('base64');
const item = (client: number, text = 'hello', extra: object = {}) => ({
  client_message_id: hex(0x1000 + client),
  conversation_id: CONV,
  body: b64(text),
  ...extra,
});

describe('POST /v1/messages/batch', () => {
  let t: WriterTestApp;
  beforeEach(async () => {
    t = await writerTestApp({ sendBatch: { maxItems: 5, bodyLimit: 16 * 1024 } });
    await t.app.inject({ method: 'PUT', url: `/v1/conversations/${CONV}/members`, headers: headers(T), payload: { members: [ALICE, BOB] } });
  });
  afterEach(() => t.app.close());

  const batch = (user: string, messages: unknown[]) =>
    t.app.inject({ method: 'POST', url: '/v1/messages/batch', headers: headers(T, user as never), payload: { messages } });
  const single = (user: string, body: object) => t.app.inject({ method: 'POST', url: '/v1/messages', headers: headers(T, user as never), payload: body });

  it('commits each item and answers each on its own, in request order, like a single send', async () => {
    const r = await batch(ALICE, [item(1, 'a'), item(2, 'b'), item(3, 'c')]);
    expect(r.statusCode).toBe(200);
    const answer = r.json();
    // The 200 answer is serialized without a per-request check (typedOkSerializer): it must pass its schema as is.
    expect(sendBatchAnswerSchema.parse(answer)).toEqual(answer);
    expect(answer.results.map((x: { status: number }) => x.status)).toEqual([200, 200, 200]);
    expect(new Set(answer.results.map((x: { body: { seq: string } }) => x.body.seq))).toEqual(new Set(['1', '2', '3']));
    expect(answer.results.map((x: { body: { conversation_id: string; replay: boolean } }) => [x.body.conversation_id, x.body.replay])).toEqual([
      [CONV, false],
      [CONV, false],
      [CONV, false],
    ]);
    expect(t.publisher.published.map((p) => Buffer.from(p.request.body).toString()).sort()).toEqual(['a', 'b', 'c']);
  });

  it('answers a duplicate of an earlier send (and of an earlier item) with the identical first answer, replay true', async () => {
    const first = (await single(ALICE, item(1, 'a'))).json();
    const r = (await batch(ALICE, [item(2, 'b'), item(1, 'a'), item(2, 'b')])).json();
    expect(r.results[1]).toEqual({ status: 200, body: { ...first, replay: true } });
    expect(r.results[2]).toEqual({ status: 200, body: { ...r.results[0].body, replay: true } });
    expect(t.publisher.published).toHaveLength(2);
  });

  it('refuses an invalid item alone (400 INVALID_INPUT naming the field) while the others are sent', async () => {
    const r = (
      await batch(ALICE, [item(1), { ...item(2), client_message_id: 'XYZ' }, 'not an object', item(3, 'x', { retention: { kind: 'forever' } }), item(4)])
    ).json();
    expect(r.results.map((x: { status: number; body: { code?: string } }) => [x.status, x.body.code ?? 'ok'])).toEqual([
      [200, 'ok'],
      [400, 'INVALID_INPUT'],
      [400, 'INVALID_INPUT'],
      [400, 'INVALID_INPUT'],
      [200, 'ok'],
    ]);
    expect(r.results[1].body.message).toContain('messages.1.client_message_id');
    expect(t.publisher.published).toHaveLength(2);
  });

  it('answers each item the error a single send would get: CONFLICT, and 503 when the outbox is down', async () => {
    await single(ALICE, item(1, 'one'));
    t.publisher.failing = true;
    const r = (await batch(ALICE, [item(1, 'two'), item(2)])).json();
    expect(r.results.map((x: { status: number; body: { code: string } }) => [x.status, x.body.code])).toEqual([
      [409, 'CONFLICT'],
      [503, 'UNAVAILABLE'],
    ]);
    expect(r.results[1].body.request_id).toEqual(expect.any(String));
    t.publisher.failing = false;
    const retry = (await batch(ALICE, [item(2)])).json();
    expect(retry.results[0]).toMatchObject({ status: 200, body: { seq: '2' } });
  });

  it('answers a non-member 403 per item, nothing written', async () => {
    const r = (await batch(MALLORY, [item(1), item(2)])).json();
    expect(r.results.map((x: { status: number }) => x.status)).toEqual([403, 403]);
    expect(t.publisher.published).toHaveLength(0);
  });

  it('refuses a batch of more than QIM_SEND_BATCH_MAX items whole: 413 BATCH_TOO_LARGE, nothing sent', async () => {
    const r = await batch(
      ALICE,
      [1, 2, 3, 4, 5, 6].map((i) => item(i)),
    );
    expect(r.statusCode).toBe(413);
    expect(r.json()).toEqual({ code: 'BATCH_TOO_LARGE', message: expect.stringContaining('QIM_SEND_BATCH_MAX') });
    expect(t.publisher.published).toHaveLength(0);
  });

  it('refuses a body over the batch body limit whole (413 PAYLOAD_TOO_LARGE) and an empty or malformed batch (400)', async () => {
    const big = await batch(ALICE, [item(1, 'x'.repeat(9_000)), item(2, 'y'.repeat(9_000))]);
    expect([big.statusCode, big.json().code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
    for (const payload of [{ messages: [] }, { messages: {} }, {}, { messages: [item(1)], extra: 1 }]) {
      const r = await t.app.inject({ method: 'POST', url: '/v1/messages/batch', headers: headers(T, ALICE), payload });
      expect([r.statusCode, r.json().code]).toEqual([400, 'INVALID_INPUT']);
    }
    expect(t.publisher.published).toHaveLength(0);
  });

  it('takes a batch body above the single-send body limit up to its own limit', async () => {
    // 128 KiB is the single-send limit of the test app; the batch route has its own.
    const u = await writerTestApp({ sendBatch: { maxItems: 5, bodyLimit: 512 * 1024 } });
    await u.app.inject({ method: 'PUT', url: `/v1/conversations/${CONV}/members`, headers: headers(T), payload: { members: [ALICE] } });
    const messages = [1, 2, 3].map((i) => item(i, 'z'.repeat(60_000)));
    const r = await u.app.inject({ method: 'POST', url: '/v1/messages/batch', headers: headers(T, ALICE), payload: { messages } });
    expect(r.json().results.map((x: { status: number }) => x.status)).toEqual([200, 200, 200]);
    await u.app.close();
  });
});
