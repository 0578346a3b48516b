import { hex, scyllaOverrides } from './support/e2e-env';
import { eventually } from './support/eventually';
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
  const send = (user: string, n: number) => stack.client(T, user).send({ conversationId: CONV, body: `cql ${n}`, clientMessageId: hex(0xb000 + n) });

  beforeAll(async () => {
    await stack.up();
    expect(await stack.client(T).addMembers(CONV, members)).toBe(members.length);
  });
  afterAll(() => stack.down());

  it('reports the scylla backend ready with its dialect', async () => {
    const r = await stack.client().readiness('writer');
    expect(r.ready).toBe(true);
    expect(r.checks['store']).toMatchObject({ ok: true, detail: { backend: 'scylla', problems: [] } });
  });

  it('sends, replays, pages history and fans out; seqs continue after a writer restart', async () => {
    const first = await send(members[0]!, 1);
    expect([first.seq, first.replay]).toEqual([1n, false]);
    const replay = await send(members[0]!, 1);
    expect(replay).toEqual({ ...first, replay: true });
    expect((await stack.writer!.stop('SIGTERM')).code).toBe(0);
    await stack.startWriter();
    const second = await send(members[1]!, 2);
    expect(second.seq).toBe(2n);
    const page = await stack.client(T, members[2]!).historyPage(CONV);
    expect(page.items.map((i) => i.seq)).toEqual([2n, 1n]);
    await eventually('every member has both messages', async () => {
      for (const u of members) {
        const r = await stack
          .client(T, u)
          .syncPage()
          .catch(() => null);
        if (r === null || r.entries.length !== 2) return false;
      }
      return true;
    });
  });
});
