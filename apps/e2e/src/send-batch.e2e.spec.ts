import type { QimClient } from '@qim/client';
import { QimInvalidInputError, newId128 } from '@qim/client';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TOKEN, hex } from './support/e2e-env';
import { qimCliEntry, runQim } from './support/qim-cli';
import { ServiceStack } from './support/service-stack';

/**
 * `POST /v1/messages/batch` over the real services (Redis + Kafka), through the typed client's
 * `sendMany`, raw HTTP and `qim send --file`: per-item idempotency, an invalid item refused alone,
 * an over-size batch refused with nothing sent, and the batch's messages delivered to the mailboxes.
 */
describe('batch send against the running stack', () => {
  // A small batch bound and body limit, so that the refusals are cheap to provoke.
  const stack = new ServiceStack({ QIM_SEND_BATCH_MAX: '5', QIM_SEND_BATCH_BODY_LIMIT_BYTES: '65536' });
  const T = hex(0xba7c);
  const CONV = hex(0xc0ba7c);
  const [alice, bob] = [hex(0xa11ce), hex(0xb0b)];
  let client: QimClient;

  const history = async (): Promise<string[]> => {
    const out: string[] = [];
    for await (const page of client.history(CONV, { direction: 'newer' })) out.push(...page.items.map((m) => Buffer.from(m.body).toString()));
    return out;
  };
  const rawBatch = (messages: unknown[]) =>
    fetch(`${stack.writerUrl}/v1/messages/batch`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'x-qim-tenant': T, 'x-qim-user': alice },
      body: JSON.stringify({ messages }),
    });

  beforeAll(async () => {
    await stack.up();
    client = stack.client(T, alice);
    await client.addMembers(CONV, [alice, bob]);
  });
  afterAll(() => stack.down());

  it('answers a duplicate of an earlier send identically (replay), sends the rest, and delivers them', async () => {
    const earlier = newId128();
    const first = await client.send({ conversationId: CONV, body: 'first', clientMessageId: earlier });
    const r = await client.sendMany([
      { conversationId: CONV, body: 'b1' },
      { conversationId: CONV, body: 'first', clientMessageId: earlier },
      { conversationId: CONV, body: 'b2' },
    ]);
    expect(r.map((x) => x.ok)).toEqual([true, true, true]);
    expect(r[1]).toEqual({ ok: true, clientMessageId: earlier, result: { ...first, replay: true } });
    const again = await client.sendMany(r.map((x, i) => ({ conversationId: CONV, body: ['b1', 'first', 'b2'][i]!, clientMessageId: x.clientMessageId })));
    expect(again.map((x) => x.ok && { ...x.result, replay: true })).toEqual(r.map((x) => x.ok && { ...x.result, replay: true }));
    expect(again.every((x) => x.ok && x.result.replay)).toBe(true);
    expect((await history()).sort()).toEqual(['b1', 'b2', 'first']);
    // Delivered like single sends: bob's mailbox holds all three messages.
    const seen = new Set<string>();
    const deadline = Date.now() + 60_000;
    while (seen.size < 3 && Date.now() < deadline) {
      for await (const page of client.as(bob).sync({}))
        for (const e of page.entries) for (const ev of e.events) if (ev.message) seen.add(Buffer.from(ev.message.body).toString());
      if (seen.size < 3) await new Promise((resolve) => setTimeout(resolve, 300));
    }
    expect(seen).toEqual(new Set(['first', 'b1', 'b2']));
  });

  it('refuses an invalid item alone (400 INVALID_INPUT) while the others are committed', async () => {
    const before = (await history()).length;
    const raw = await rawBatch([
      { client_message_id: newId128(), conversation_id: CONV, body: Buffer.from('raw-ok').toString('base64') },
      { client_message_id: 'not-hex', conversation_id: CONV, body: 'eA==' },
    ]);
    expect(raw.status).toBe(200);
    const answer = (await raw.json()) as { results: { status: number; body: { code?: string; seq?: string } }[] };
    expect(answer.results.map((x) => [x.status, x.body.code ?? 'ok'])).toEqual([
      [200, 'ok'],
      [400, 'INVALID_INPUT'],
    ]);
    const r = await client.sendMany([
      { conversationId: CONV, body: 'typed-ok' },
      { conversationId: CONV, body: 'x', contentType: 'x'.repeat(300) },
    ]);
    expect(r[0]!.ok).toBe(true);
    const invalid = r[1]!.ok ? null : r[1]!.error;
    expect(invalid).toBeInstanceOf(QimInvalidInputError);
    expect(invalid).toMatchObject({ code: 'INVALID_INPUT', status: 400, clientMessageId: r[1]!.clientMessageId });
    expect((await history()).slice(before)).toEqual(['raw-ok', 'typed-ok']);
  });

  it('refuses an over-size batch whole, with nothing sent: more than QIM_SEND_BATCH_MAX items, or over its body limit', async () => {
    const before = await history();
    const many = await client.sendMany([1, 2, 3, 4, 5, 6].map((i) => ({ conversationId: CONV, body: `many-${i}` })));
    expect(new Set(many.map((x) => !x.ok && `${x.error.status} ${x.error.code}`))).toEqual(new Set(['413 BATCH_TOO_LARGE']));
    expect(many.every((x) => !x.ok && x.error.clientMessageId === x.clientMessageId)).toBe(true);
    const big = await client.sendMany([1, 2].map((i) => ({ conversationId: CONV, body: `${i}`.repeat(40_000) })));
    expect(new Set(big.map((x) => !x.ok && `${x.error.status} ${x.error.code}`))).toEqual(new Set(['413 PAYLOAD_TOO_LARGE']));
    expect(await history()).toEqual(before);
  });

  it('qim send --file sends a JSONL file and prints each line with its outcome and client id', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'qim-batch-'));
    const file = join(dir, 'messages.jsonl');
    const [repeat, third] = [newId128(), newId128()];
    // Line 1 has no client id: each run sends it anew (under a fresh id, printed); lines 2 and 3 are sent once.
    const ids = [undefined, repeat, third];
    writeFileSync(file, [1, 2, 3].map((i) => JSON.stringify({ conversation_id: CONV, text: `cli-${i}`, client_message_id: ids[i - 1] })).join('\n'));
    const env = { QIM_WRITER_URL: stack.writerUrl, QIM_MAILBOX_URL: stack.mailboxUrl, QIM_SERVICE_TOKEN: TOKEN, QIM_TENANT_ID: T, QIM_USER_ID: bob };
    const first = await runQim(qimCliEntry(), ['send', '--file', file, '--batch-size', '2'], env);
    expect([first.code, first.stderr]).toEqual([0, '']);
    const lines = first.stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[1]).toMatch(new RegExp(`^line 2: sent #\\d+ message [0-9a-f]{32} \\(client id ${repeat}\\)$`));
    const again = await runQim(qimCliEntry(), ['send', '--file', file], env);
    expect(again.stdout.trim().split('\n')[1]).toBe(lines[1]!.replace('line 2: sent', 'line 2: already sent'));
    expect((await history()).filter((t) => t.startsWith('cli-')).sort()).toEqual(['cli-1', 'cli-1', 'cli-2', 'cli-3']);
  });
});
