import { mkdtempSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScriptedServer, entryJson, hex, messageJson, syncJson } from '@qim/client/testing';
import type { CliIo } from './cli-io';
import { runCli } from './run-cli';

const T = hex(0x7e),
  ALICE = hex(0xa1),
  BOB = hex(0xb0),
  CONV = hex(0xc0);

class MemoryIo implements CliIo {
  readonly stdout: string[] = [];
  readonly stderr: string[] = [];
  out = (line: string) => void this.stdout.push(line);
  err = (line: string) => void this.stderr.push(line);
}

async function until(what: string, probe: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('qim (in process, against real HTTP servers)', () => {
  let writer: ScriptedServer;
  let mailbox: ScriptedServer;
  let env: Record<string, string>;
  const run = async (argv: string[], signal = new AbortController().signal) => {
    const io = new MemoryIo();
    const code = await runCli(argv, env, io, signal);
    return { code, out: io.stdout, err: io.stderr };
  };

  beforeEach(async () => {
    [writer, mailbox] = await Promise.all([ScriptedServer.start(), ScriptedServer.start()]);
    env = { QIM_WRITER_URL: writer.url, QIM_MAILBOX_URL: mailbox.url, QIM_SERVICE_TOKEN: 'env-token-0123456789', QIM_TENANT_ID: T, QIM_USER_ID: ALICE };
  });
  afterEach(() => Promise.all([writer.close(), mailbox.close()]));

  it('send: configured from the environment, flags win; prints the outcome as text or JSON', async () => {
    writer.on('POST', '/v1/messages', (r) => ({
      status: 200,
      body: {
        conversation_id: CONV,
        seq: '3',
        message_id: hex(0x333),
        created_at: '1700000000000',
        replay: (r.body as { client_message_id: string }).client_message_id === hex(0xd0),
      },
    }));
    const text = await run(['send', CONV, 'hello', 'world']);
    expect(text.code).toBe(0);
    expect(text.out[0]).toMatch(/^sent #3 message 0+333 \(client id [0-9a-f]{32}\)$/);
    expect(writer.requests[0]!.body).toMatchObject({ conversation_id: CONV, body: Buffer.from('hello world').toString('base64') });
    expect(writer.requests[0]!.headers).toMatchObject({ authorization: 'Bearer env-token-0123456789', 'x-qim-user': ALICE });

    const tokenFile = join(mkdtempSync(join(tmpdir(), 'qim-cli-')), 'token');
    writeFileSync(tokenFile, 'file-token-0123456789\n', { mode: 0o600 });
    const json = await run(['--json', 'send', CONV, 'again', '--user', BOB, '--token-file', tokenFile, '--client-id', hex(0xd0), '--ttl', '60']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.out[0]!)).toEqual({
      conversationId: CONV,
      seq: '3',
      messageId: hex(0x333),
      createdAt: '1700000000000',
      replay: true,
      clientMessageId: hex(0xd0),
    });
    expect(writer.requests[1]!.headers).toMatchObject({ authorization: 'Bearer file-token-0123456789', 'x-qim-user': BOB });
    expect(writer.requests[1]!.body).toMatchObject({ retention: { kind: 'ephemeral', ttl_seconds: 60 } });
  });

  it('send refused: exit 1 with the code, status, request id and the client id to retry with', async () => {
    writer.on('POST', '/v1/messages', [{ status: 409, body: { code: 'CONFLICT', message: 'client id reused with other content' } }]);
    const r = await run(['send', CONV, 'x', '--client-id', hex(0xd1)]);
    expect(r.code).toBe(1);
    expect(r.err).toEqual([
      `qim: CONFLICT (409, request ${writer.requests[0]!.headers['x-request-id']}): client id reused with other content — retry with --client-id ${hex(0xd1)}`,
    ]);
  });

  it('history: walks pages up to --limit, as text or JSON lines', async () => {
    writer.on('GET', `/v1/conversations/${CONV}/messages`, (r) => {
      const top = r.query['anchor'] === undefined ? 5 : Number(r.query['anchor']) - 1;
      const seqs = [top, top - 1].filter((s) => s > 0);
      return {
        status: 200,
        body: {
          conversation_id: CONV,
          direction: 'older',
          items: seqs.map((s) => messageJson(CONV, s, BOB, `m${s}`)),
          has_more: seqs[seqs.length - 1]! > 1,
          next_anchor: String(seqs[seqs.length - 1]),
        },
      };
    });
    const text = await run(['history', CONV, '--page-size', '2', '--limit', '3']);
    expect(text.code).toBe(0);
    expect(text.out).toEqual([5, 4, 3].map((s) => `#${s} ${new Date(1_700_000_000_000 + s).toISOString()} ${BOB}: m${s}`));
    expect(writer.requests).toHaveLength(2);
    const json = await run(['history', CONV, '--all', '--json']);
    expect(json.out.map((l) => JSON.parse(l) as { seq: string; text: string }).map((m) => [m.seq, m.text])).toEqual(
      [5, 4, 3, 2, 1].map((s) => [String(s), `m${s}`]),
    );
  });

  it('sync --follow prints entries as they arrive and ends quietly when stopped', async () => {
    const pending: number[] = [];
    let wake: (() => void) | null = null;
    mailbox.on('GET', `/v1/mailboxes/${ALICE}/entries`, async (r, gone) => {
      if (r.query['wait_ms'] !== undefined && pending.length === 0) {
        await new Promise<void>((resolve) => {
          wake = resolve;
          gone.addEventListener('abort', () => resolve());
        });
      }
      const seqs = pending.splice(0);
      const after = BigInt(r.query['after'] ?? '0');
      const next = seqs.length > 0 ? BigInt(seqs[seqs.length - 1]!) : after;
      return {
        status: 200,
        body: syncJson(
          seqs.map((s) => entryJson(BigInt(s), messageJson(CONV, s, BOB, `live ${s}`))),
          next,
          false,
        ),
      };
    });
    const stop = new AbortController();
    const io = new MemoryIo();
    const done = runCli(['sync', '--follow', '--wait-ms', '5000'], env, io, stop.signal);
    await until('a held long poll', () => wake !== null);
    pending.push(7);
    wake!();
    await until('the printed entry', () => io.stdout.length === 1);
    expect(io.stdout).toEqual([`@7 ${CONV} #7 ${new Date(1_700_000_000_007).toISOString()} ${BOB}: live 7`]);
    expect(mailbox.requests[mailbox.requests.length - 1]!.query).toMatchObject({ wait_ms: '5000' });
    stop.abort();
    expect(await done).toBe(0);
  });

  it('sync --stream follows by streams: reconnects from the cursor at a stream end, resyncs after a 410, ends quietly when stopped', async () => {
    const event = (name: string, data: unknown): string => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
    const page = (seq: number): string => event('page', syncJson([entryJson(BigInt(seq), messageJson(CONV, seq, BOB, `s${seq}`))], BigInt(seq), false));
    const urls: string[] = [];
    const server = http.createServer((req, res) => {
      urls.push(req.url ?? '');
      const after = new URL(req.url ?? '/', 'http://x').searchParams.get('after');
      if (after === '1') {
        res.writeHead(410, { 'content-type': 'application/json' });
        return void res.end(JSON.stringify({ code: 'CURSOR_EXPIRED', message: 'below the trim', resync: true }));
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (after === null && urls.length === 1) return void res.end(page(1) + event('end', { next_after: '1' }));
      res.write(page(5)); // then held open until the command stops
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const stop = new AbortController();
      const io = new MemoryIo();
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const done = runCli(['sync', '--stream', '--page-size', '3'], { ...env, QIM_MAILBOX_URL: url }, io, stop.signal);
      await until('the entry after the resync', () => io.stdout.length === 2);
      stop.abort();
      expect(await done).toBe(0);
      expect(urls).toEqual([`/v1/mailboxes/${ALICE}/stream?limit=3`, `/v1/mailboxes/${ALICE}/stream?after=1&limit=3`, `/v1/mailboxes/${ALICE}/stream?limit=3`]);
      expect(io.stdout.map((l) => l.split(': ')[1])).toEqual(['s1', 's5']);
      expect(io.stderr).toEqual(['cursor 1 refused (CURSOR_EXPIRED: below the trim); resyncing from the start']);
      expect((await run(['sync', '--stream', '--wait-ms', '10'])).code).toBe(2);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  it('sync: catches up, says when it resyncs after a 410, and prints the cursor to resume from', async () => {
    mailbox.on('GET', `/v1/mailboxes/${ALICE}/entries`, (r) =>
      r.query['after'] === '1'
        ? { status: 410, body: { code: 'CURSOR_EXPIRED', message: 'below the trim', resync: true } }
        : { status: 200, body: syncJson([entryJson(5n, messageJson(CONV, 2, BOB, 'kept'))], 5n, false) },
    );
    const r = await run(['sync', '--after', '1']);
    expect(r.code).toBe(0);
    expect(r.err).toEqual(['cursor 1 refused (CURSOR_EXPIRED: below the trim); resyncing from the start']);
    expect(r.out).toEqual([`@5 ${CONV} #2 ${new Date(1_700_000_000_002).toISOString()} ${BOB}: kept`, 'cursor 5']);
  });

  it('members add, remove and list', async () => {
    const path = `/v1/conversations/${CONV}/members`;
    writer.on('PUT', path, [{ status: 200, body: { conversation_id: CONV, members: 2 } }]);
    writer.on('DELETE', path, [{ status: 200, body: { conversation_id: CONV, members: 1 } }]);
    writer.on('GET', path, [{ status: 200, body: { conversation_id: CONV, members: [ALICE] } }]);
    expect((await run(['members', 'add', CONV, ALICE, BOB])).out).toEqual(['added 2; 2 member(s) now']);
    expect((await run(['members', 'remove', CONV, BOB, '--json'])).out).toEqual([JSON.stringify({ conversationId: CONV, members: 1 })]);
    expect((await run(['members', 'list', CONV])).out).toEqual([ALICE]);
    expect(writer.requests.map((q) => [q.method, q.body])).toEqual([
      ['PUT', { members: [ALICE, BOB] }],
      ['DELETE', { members: [BOB] }],
      ['GET', null],
    ]);
  });

  it('status: readiness of both services and every shard until the mailbox refuses the number', async () => {
    writer.on('GET', '/readyz', [
      { status: 200, body: { status: 'ready', checks: { backend: { ok: true }, 'writer-lease': { ok: true, detail: { writerId: 0 } } } } },
    ]);
    mailbox.on('GET', '/readyz', [{ status: 200, body: { status: 'ready', checks: { backend: { ok: true }, kafka: { ok: true } } } }]);
    mailbox.on('GET', /^\/v1\/shards\/\d+\/status$/, (r) => {
      const shard = Number(r.path.split('/')[3]);
      return shard < 2
        ? { status: 200, body: { shard, epoch: 1, frontier: String(10 + shard), kafka: { lag: '0' }, assigned_here: true } }
        : { status: 400, body: { code: 'INVALID_INPUT', message: 'shard must be 0…1' } };
    });
    const text = await run(['status']);
    expect(text.code).toBe(0);
    expect(text.out).toEqual([
      'writer   ready        backend ok · writer-lease ok',
      'mailbox  ready        backend ok · kafka ok',
      'shard 0  epoch 1  frontier 10  lag 0  assigned here',
      'shard 1  epoch 1  frontier 11  lag 0  assigned here',
    ]);
    const json = JSON.parse((await run(['status', '--json', '--shard', '1'])).out[0]!);
    expect(json).toMatchObject({ healthy: true, writer: { ready: true }, shards: [{ shard: 1, frontier: '11', lag: '0' }], shardError: null });
  });

  it('status: exit 1 when a shard is stalled, naming the reason', async () => {
    for (const s of [writer, mailbox]) s.on('GET', '/readyz', [{ status: 200, body: { status: 'ready', checks: {} } }]);
    mailbox.on('GET', '/v1/shards/0/status', [
      { status: 200, body: { shard: 0, epoch: 1, frontier: '4', kafka: { lag: '3', unapplied: '2' }, stalled: { reason: 'frontier gap at 6' } } },
    ]);
    const r = await run(['status', '--shards', '1']);
    expect(r.code).toBe(1);
    expect(r.out[2]).toBe('shard 0  epoch 1  frontier 4  lag 3  unapplied 2  STALLED (frontier gap at 6)');
  });

  it('status: exit 1 when a service is not ready or unreachable', async () => {
    writer.on('GET', '/readyz', [{ status: 503, body: { status: 'not_ready', checks: { 'writer-lease': { ok: false, detail: 'lease lost' } } } }]);
    await mailbox.close();
    const r = await run(['status']);
    expect(r.code).toBe(1);
    expect(r.out[0]).toBe('writer   NOT READY    writer-lease FAIL (lease lost)');
    expect(r.out[1]).toMatch(/^mailbox  UNREACHABLE  TRANSPORT: /);
    mailbox = await ScriptedServer.start();
  });

  it.each([
    [['nope'], 'unknown command'],
    [['send', CONV, 'x', '--follow'], 'send does not take --follow'],
    [['history', CONV, '--bogus'], "Unknown option '--bogus'"],
    [['sync', '--after', '1e3'], 'must be a decimal u64'],
    [['sync', '--after'], "Option '--after <value>' argument missing"],
    [['members', 'add', CONV, 'not-an-id'], 'member must be 32 lowercase hex'],
    [['send', CONV, 'x', '--tenant', 'T1'], 'tenantId must be 32 lowercase hex'],
  ])('usage and configuration problems exit 2 before anything is sent: %j', async (argv, message) => {
    const r = await run(argv);
    expect(r.code).toBe(2);
    expect(r.err[0]).toContain(message);
    expect([...writer.requests, ...mailbox.requests]).toEqual([]);
  });

  it('needs a service token, from the environment or a file only (never a flag: the process list would show it)', async () => {
    delete env['QIM_SERVICE_TOKEN'];
    const r = await run(['members', 'list', CONV]);
    expect([r.code, r.err[0]]).toEqual([2, 'qim: no service token: set QIM_SERVICE_TOKEN or pass --token-file FILE']);
    for (const argv of [
      ['--token', 'flag-token-0123456789', 'members', 'list', CONV],
      ['members', 'list', CONV, '--token=flag-token-0123456789'],
    ]) {
      const flag = await run(argv);
      expect(flag.code).toBe(2);
      expect(flag.err[0]).toBe('qim: --token is not accepted (the process list would show the token): set QIM_SERVICE_TOKEN or pass --token-file FILE');
    }
    const dir = mkdtempSync(join(tmpdir(), 'qim-cli-'));
    writeFileSync(join(dir, 'empty'), '\n');
    expect((await run(['--token-file', join(dir, 'empty'), 'members', 'list', CONV])).err[0]).toBe(`qim: --token-file ${join(dir, 'empty')} is empty`);
    expect((await run(['--token-file', join(dir, 'absent'), 'members', 'list', CONV])).err[0]).toMatch(/^qim: cannot read --token-file .*absent: ENOENT/);
    expect([...writer.requests, ...mailbox.requests]).toEqual([]);
  });

  it('send stopped by Ctrl-C while in flight: exit 130, and the client id to repeat it with (it may have been sent)', async () => {
    writer.on('POST', '/v1/messages', (_r, gone) => new Promise((resolve) => gone.addEventListener('abort', () => resolve({ status: 200, body: {} }))));
    const stop = new AbortController();
    const running = run(['send', CONV, 'x'], stop.signal);
    await until('the send reached the writer', () => writer.requests.length === 1);
    stop.abort();
    const r = await running;
    const id = (writer.requests[0]!.body as { client_message_id: string }).client_message_id;
    expect(r.code).toBe(130);
    expect(r.err).toEqual([`qim: stopped; the message may have been sent — repeat with --client-id ${id} (never a new id)`]);
  });
});
