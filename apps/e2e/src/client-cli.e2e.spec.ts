import type { MailboxEntry, ResyncEvent, SyncPage } from '@qim/client';
import { QimClient, QimConflictError, QimForbiddenError, newId128 } from '@qim/client';
import { TOKEN, hex } from './support/e2e-env';
import { qimCliEntry, runQim } from './support/qim-cli';
import { ServiceStack } from './support/service-stack';

/**
 * The typed client (`libs/client`) and the `qim` CLI (`apps/cli`) against the real services over
 * Redis + Kafka: membership, send (replay, 409, 403), history pages, long-polling sync, 410 resync,
 * readiness and shard status.
 */
describe('client and qim CLI against the running stack', () => {
  const stack = new ServiceStack();
  const T = hex(0xc11e);
  const CONV = hex(0xc0c11);
  const [alice, bob, carol] = [hex(0xa11ce), hex(0xb0b), hex(0xca201)];
  let client: QimClient;
  let qim: string;
  let cliEnv: Record<string, string>;
  const messageIdsOf = (entries: readonly MailboxEntry[]) => entries.flatMap((e) => e.events.map((ev) => ev.message?.messageId));

  async function drain(c: QimClient, after: bigint | null = null): Promise<SyncPage[]> {
    const pages: SyncPage[] = [];
    for await (const p of c.sync({ after })) pages.push(p);
    return pages;
  }

  async function entriesOf(c: QimClient, count: number): Promise<MailboxEntry[]> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const entries = (await drain(c)).flatMap((p) => p.entries);
      if (entries.length >= count || Date.now() > deadline) return entries;
      await new Promise((r) => setTimeout(r, 300));
    }
  }

  beforeAll(async () => {
    qim = qimCliEntry();
    await stack.up();
    const urls = { writerUrl: stack.writerUrl, mailboxUrl: stack.mailboxUrl };
    client = new QimClient({ ...urls, token: TOKEN, tenantId: T, userId: alice });
    cliEnv = { QIM_WRITER_URL: urls.writerUrl, QIM_MAILBOX_URL: urls.mailboxUrl, QIM_SERVICE_TOKEN: TOKEN, QIM_TENANT_ID: T };
  });
  afterAll(() => stack.down());

  it('manages members with the client and the CLI', async () => {
    expect(await client.addMembers(CONV, [alice, bob])).toBe(2);
    const added = await runQim(qim, ['members', 'add', CONV, carol], cliEnv);
    expect([added.code, added.stdout.trim()]).toEqual([0, 'added 1; 3 member(s) now']);
    const listed = await runQim(qim, ['members', 'list', CONV, '--json'], cliEnv);
    expect(listed.code).toBe(0);
    expect(new Set(JSON.parse(listed.stdout).members)).toEqual(new Set([alice, bob, carol]));
  });

  it('sends once per client id (a repeat is a replay), 409 for other content, 403 for a non-member', async () => {
    const clientMessageId = newId128();
    const first = await client.send({ conversationId: CONV, body: 'hello from the client', clientMessageId });
    expect(first).toMatchObject({ conversationId: CONV, seq: 1n, replay: false, clientMessageId });
    const again = await client.send({ conversationId: CONV, body: 'hello from the client', clientMessageId });
    expect(again).toEqual({ ...first, replay: true });
    const conflict = await client.send({ conversationId: CONV, body: 'other text', clientMessageId }).catch((e: unknown) => e);
    expect(conflict).toBeInstanceOf(QimConflictError);
    expect(conflict).toMatchObject({ code: 'CONFLICT', status: 409, clientMessageId });
    const outsider = await client
      .as(hex(0xbad))
      .send({ conversationId: CONV, body: 'let me in' })
      .catch((e: unknown) => e);
    expect(outsider).toBeInstanceOf(QimForbiddenError);
    expect(outsider).toMatchObject({ code: 'FORBIDDEN', status: 403 });

    const cli = await runQim(qim, ['send', CONV, 'hello', 'from', 'qim'], { ...cliEnv, QIM_USER_ID: bob });
    expect([cli.code, cli.stderr]).toEqual([0, '']);
    expect(cli.stdout).toMatch(/^sent #2 message [0-9a-f]{32} \(client id [0-9a-f]{32}\)\n$/);
  });

  it('reads history page by page with the client and the CLI', async () => {
    const pages = [];
    for await (const page of client.history(CONV, { maxItems: 1 })) pages.push(page.items.map((m) => [m.seq, Buffer.from(m.body).toString()]));
    expect(pages).toEqual([[[2n, 'hello from qim']], [[1n, 'hello from the client']]]);
    const cli = await runQim(qim, ['history', CONV, '--json', '--page-size', '1'], { ...cliEnv, QIM_USER_ID: carol });
    expect(cli.code).toBe(0);
    expect(
      cli.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).text),
    ).toEqual(['hello from qim', 'hello from the client']);
  });

  it('syncs each member; a long poll answers as soon as a new message is applied', async () => {
    const bobs = client.as(bob);
    const caughtUp = await entriesOf(bobs, 2);
    expect(caughtUp.map((e) => Buffer.from(e.events[0]!.message!.body).toString())).toEqual(['hello from the client', 'hello from qim']);
    const ac = new AbortController();
    const arrived: SyncPage[] = [];
    const following = (async () => {
      for await (const p of bobs.sync({ after: caughtUp[caughtUp.length - 1]!.seq, follow: true, waitMs: 20_000, signal: ac.signal })) {
        arrived.push(p);
        if (p.entries.length > 0) ac.abort();
      }
    })();
    await new Promise((r) => setTimeout(r, 500));
    const started = Date.now();
    const sent = await client.send({ conversationId: CONV, body: 'live' });
    await following;
    expect(messageIdsOf(arrived.flatMap((p) => p.entries))).toEqual([sent.messageId]);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('qim sync --follow prints a message as it arrives and stops on Ctrl-C', async () => {
    const env = { ...cliEnv, QIM_USER_ID: carol };
    await entriesOf(client.as(carol), 3);
    const follow = runQim(qim, ['sync', '--follow'], env, (out) => out.includes('follow me'));
    await new Promise((r) => setTimeout(r, 1_000));
    await client.send({ conversationId: CONV, body: 'follow me' });
    const r = await follow;
    expect([r.code, r.stderr]).toEqual([0, '']);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[3]).toMatch(new RegExp(`^@\\d+ ${CONV} #4 \\S+ ${alice}: follow me$`));
  });

  it('resyncs from the start after a truncate made the cursor expire (410)', async () => {
    const carols = client.as(carol);
    const entries = await entriesOf(carols, 4);
    await carols.truncate(entries[1]!.seq);
    const resyncs: ResyncEvent[] = [];
    const pages: SyncPage[] = [];
    for await (const p of carols.sync({ after: entries[0]!.seq, onResync: (e) => void resyncs.push(e) })) pages.push(p);
    expect(resyncs.map((e) => [e.cursor, e.error.code])).toEqual([[entries[0]!.seq, 'CURSOR_EXPIRED']]);
    expect(messageIdsOf(pages.flatMap((p) => p.entries))).toEqual(messageIdsOf(entries.slice(2)));
  });

  it('reports readiness and each shard with its frontier (client and qim status)', async () => {
    expect((await client.readiness('writer')).ready).toBe(true);
    expect((await client.readiness('mailbox')).ready).toBe(true);
    const shards = await Promise.all([0, 1].map((s) => client.shardStatus(s)));
    expect(shards.map((s) => [s.shard, s.epoch, s.stall])).toEqual([
      [0, 1, null],
      [1, 1, null],
    ]);
    expect(shards.some((s) => typeof s.frontier === 'bigint')).toBe(true);
    const cli = await runQim(qim, ['status', '--json'], cliEnv);
    expect(cli.code).toBe(0);
    const status = JSON.parse(cli.stdout);
    expect(status).toMatchObject({ healthy: true, writer: { ready: true }, mailbox: { ready: true }, shardError: null });
    expect(status.shards.map((s: { shard: number }) => s.shard)).toEqual([0, 1]);
  });
});
