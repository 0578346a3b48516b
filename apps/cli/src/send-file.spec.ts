import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScriptedServer, hex } from '@qim/client/testing';
import type { CliIo } from './cli-io';
import { runCli } from './run-cli';

const T = hex(0x7e),
  ALICE = hex(0xa1),
  CONV = hex(0xc0);

class MemoryIo implements CliIo {
  readonly stdout: string[] = [];
  readonly stderr: string[] = [];
  out = (line: string) => void this.stdout.push(line);
  err = (line: string) => void this.stderr.push(line);
}

type Item = { client_message_id: string; body: string };
const ok = (seq: number, replay = false) => ({
  status: 200,
  body: { conversation_id: CONV, seq: String(seq), message_id: hex(0x300 + seq), created_at: '1700000000000', replay },
});

describe('qim send --file (in process, against a real HTTP server)', () => {
  let writer: ScriptedServer;
  let env: Record<string, string>;
  let dir: string;
  const run = async (argv: string[]) => {
    const io = new MemoryIo();
    const code = await runCli(argv, env, io, new AbortController().signal);
    return { code, out: io.stdout, err: io.stderr };
  };
  const file = (lines: string[]) => {
    const path = join(dir, `m-${Math.random()}.jsonl`);
    writeFileSync(path, `${lines.join('\n')}\n`);
    return path;
  };

  beforeEach(async () => {
    writer = await ScriptedServer.start();
    dir = mkdtempSync(join(tmpdir(), 'qim-cli-'));
    env = { QIM_WRITER_URL: writer.url, QIM_MAILBOX_URL: writer.url, QIM_SERVICE_TOKEN: 'env-token-0123456789', QIM_TENANT_ID: T, QIM_USER_ID: ALICE };
  });
  afterEach(() => writer.close());

  it('sends one message per JSON line in batches of --batch-size and prints each line with its outcome and client id', async () => {
    let seq = 0;
    writer.on('POST', '/v1/messages/batch', (r) => ({
      status: 200,
      body: {
        results: (r.body as { messages: Item[] }).messages.map((m) =>
          m.client_message_id === hex(0xd2)
            ? { status: 409, body: { code: 'CONFLICT', message: 'client id reused with other content' } }
            : ok(++seq, m.client_message_id === hex(0xd1)),
        ),
      },
    }));
    const path = file([
      JSON.stringify({ conversation_id: CONV, text: 'one' }),
      '',
      JSON.stringify({ conversation_id: CONV, text: 'two', client_message_id: hex(0xd1) }),
      JSON.stringify({
        conversation_id: CONV,
        body: Buffer.from([1, 2]).toString('base64'),
        content_type: 'application/octet-stream',
        kind: 'system',
        control: true,
        ttl_seconds: 60,
      }),
      JSON.stringify({ conversation_id: CONV, text: 'four', client_message_id: hex(0xd2) }),
    ]);
    const r = await run(['send', '--file', path, '--batch-size', '2']);
    expect(writer.requests.map((q) => (q.body as { messages: Item[] }).messages.length)).toEqual([2, 2]);
    const sent = writer.requests.flatMap((q) => (q.body as { messages: Item[] }).messages);
    expect(sent[0]).toMatchObject({ conversation_id: CONV, body: Buffer.from('one').toString('base64') });
    expect(sent[2]).toMatchObject({
      body: 'AQI=',
      content_type: 'application/octet-stream',
      kind: 'system',
      control: true,
      retention: { kind: 'ephemeral', ttl_seconds: 60 },
    });
    expect(r.out).toEqual([
      `line 1: sent #1 message ${hex(0x301)} (client id ${sent[0]!.client_message_id})`,
      `line 3: already sent #2 message ${hex(0x302)} (client id ${hex(0xd1)})`,
      `line 4: sent #3 message ${hex(0x303)} (client id ${sent[2]!.client_message_id})`,
      `line 5: CONFLICT (409, request ${writer.requests[1]!.headers['x-request-id']}): ` +
        `client id reused with other content — retry with client_message_id ${hex(0xd2)}`,
    ]);
    expect([r.code, r.err]).toEqual([1, ['qim: 1 of 4 sends failed']]);

    const json = await run(['--json', 'send', '--file', path]);
    const lines = json.out.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines[1]).toMatchObject({ line: 3, ok: true, clientMessageId: hex(0xd1), result: { replay: true } });
    expect(lines[3]).toMatchObject({ line: 5, ok: false, clientMessageId: hex(0xd2), code: 'CONFLICT', status: 409 });
  });

  it('refuses a malformed file before sending anything, naming the line (exit 2)', async () => {
    for (const [bad, says] of [
      ['{', 'line 2: not JSON'],
      [JSON.stringify({ text: 'no conversation' }), 'line 2: conversation_id'],
      [JSON.stringify({ conversation_id: CONV }), 'line 2: one of text or body'],
      [JSON.stringify({ conversation_id: CONV, text: 'x', colour: 'red' }), 'line 2: unknown field colour'],
    ] as const) {
      const r = await run(['send', '--file', file([JSON.stringify({ conversation_id: CONV, text: 'fine' }), bad])]);
      expect(r.code).toBe(2);
      expect(r.err[0]).toContain(says);
    }
    const both = await run(['send', CONV, 'text', '--file', file([JSON.stringify({ conversation_id: CONV, text: 'x' })])]);
    expect([both.code, both.err[0]]).toEqual([2, 'qim: send --file takes no <conversation> <text...>']);
    expect(writer.requests).toHaveLength(0);
  });
});
