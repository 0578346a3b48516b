import { hex, scyllaOverrides } from './support/e2e-env';
import { eventually } from './support/http-client';
import { ServiceStack } from './support/service-stack';

/**
 * Scylla mode over the real CQL server (Apache Cassandra 5 here): both services migrate their own
 * tables into a fresh keyspace, pass readiness, and the full path works; the writer keeps Redis only
 * for leases and membership. Needs QIM_TEST_SCYLLA_ADDR/DC/RF (fails without them).
 */
describe('scylla mode (cassandra, redis for writer leases, kafka)', () => {
  const stack = new ServiceStack(scyllaOverrides());
  const T = hex(0x5c1);
  const CONV = hex(0xc0de);
  const members = Array.from({ length: 4 }, (_, i) => hex(0x300 + i));
  const body = (n: number) => ({ client_message_id: hex(0xb000 + n), conversation_id: CONV, body: Buffer.from(`cql ${n}`).toString('base64') });

  beforeAll(async () => {
    await stack.up();
    await stack.writerApi.call('PUT', `/v1/conversations/${CONV}/members`, T, null, { members });
  });
  afterAll(() => stack.down());

  it('reports the scylla backend ready with its dialect', async () => {
    const r = await fetch(`${stack.writerApi.base}/readyz`);
    expect(((await r.json()) as { checks: Record<string, unknown> }).checks['store']).toMatchObject({ ok: true, detail: { backend: 'scylla', problems: [] } });
  });

  it('sends, replays, pages history and fans out; seqs continue after a writer restart', async () => {
    const first = await stack.writerApi.call('POST', '/v1/messages', T, members[0]!, body(1));
    expect([first.status, first.body.seq]).toEqual([200, '1']);
    const replay = await stack.writerApi.call('POST', '/v1/messages', T, members[0]!, body(1));
    expect(replay.body).toEqual({ ...first.body, replay: true });
    expect((await stack.writer!.stop('SIGTERM')).code).toBe(0);
    await stack.startWriter();
    const second = await stack.writerApi.call('POST', '/v1/messages', T, members[1]!, body(2));
    expect([second.status, second.body.seq]).toEqual([200, '2']);
    const page = await stack.writerApi.call('GET', `/v1/conversations/${CONV}/messages`, T, members[2]!);
    expect(page.body.items.map((i: { seq: string }) => i.seq)).toEqual(['2', '1']);
    await eventually('every member has both messages', async () => {
      for (const u of members) {
        const r = await stack.mailboxApi.call('GET', `/v1/mailboxes/${u}/entries`, T, u);
        if (r.status !== 200 || r.body.entries.length !== 2) return false;
      }
      return true;
    });
  });
});
