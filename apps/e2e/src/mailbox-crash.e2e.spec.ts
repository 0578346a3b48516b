import { hex } from './support/e2e-env';
import { eventually } from './support/eventually';
import { ServiceStack } from './support/service-stack';

/**
 * kill -9 of the mailbox while it dispatches a burst of messages to a large conversation; after a
 * restart every recipient has exactly one entry per message and the committed offsets catch up.
 * Pages of one record make the frontier advance record by record, so the kill lands between pages
 * (and inside one): some messages are visible, the rest are not yet applied.
 */
describe('mailbox SIGKILL mid-dispatch (redis backend, kafka)', () => {
  const stack = new ServiceStack({ QIM_MAILBOX_PAGE_RECORDS: '1' });
  const T = hex(0xc4a5);
  const CONV = hex(0xc0ffee);
  const members = Array.from({ length: 24 }, (_, i) => hex(0x200 + i));
  const MESSAGES = 60;
  const entriesOf = async (u: string) => (await stack.client(T, u).syncPage({ limit: 500 })).entries;

  /**
   * One send; a 503 (the writer's send deadline on a loaded machine) is retried by the client as a
   * device would: same request, same answer (6 attempts, up to 2 s apart).
   */
  const send = (i: number) =>
    stack
      .client(T, members[i % members.length]!, { retry: { attempts: 6, baseDelayMs: 250, maxDelayMs: 2_000 } })
      .send({ conversationId: CONV, body: `burst ${i}`, clientMessageId: hex(0xa000 + i) })
      .then(
        (sent) => ({ ok: true as const, messageId: sent.messageId }),
        (err: unknown) => ({ ok: false as const, error: String(err) }),
      );

  beforeAll(async () => {
    await stack.up();
    expect(await stack.client(T).addMembers(CONV, members)).toBe(members.length);
  });
  afterAll(() => stack.down());

  it('recovers with exactly one entry per recipient and message', async () => {
    const sending = Promise.all(Array.from({ length: MESSAGES }, (_, i) => send(i)));
    let deliveredBeforeKill = 0;
    await eventually(
      'the first messages become visible',
      async () => {
        deliveredBeforeKill = (await entriesOf(members[members.length - 1]!)).length;
        return deliveredBeforeKill > 0;
      },
      30_000,
      5,
    );
    const killed = await stack.mailbox!.stop('SIGKILL');
    // The kill must land mid-dispatch, or this spec would prove nothing about recovery.
    expect(deliveredBeforeKill).toBeLessThan(MESSAGES);
    expect(killed.signal).toBe('SIGKILL');

    const sends = await sending;
    expect(sends.filter((s) => !s.ok).slice(0, 3)).toEqual([]);
    const ids = new Set(sends.map((s) => (s.ok ? s.messageId : '')));
    await stack.startMailbox();

    await eventually(
      'every member has every message',
      async () => {
        for (const u of members) if ((await entriesOf(u)).length < MESSAGES) return false;
        return true;
      },
      120_000,
    );
    for (const u of members) {
      const got = (await entriesOf(u)).map((e) => e.events[0]!.message!.messageId);
      expect(got).toHaveLength(MESSAGES);
      expect(new Set(got)).toEqual(ids);
    }
    await eventually('committed dispatch offsets reach the end of both shards, behind the frontier', async () => {
      for (const s of [0, 1]) {
        const st = await stack
          .client()
          .shardStatus(s)
          .catch(() => null);
        if (st === null) return false;
        const kafka = st.raw['kafka'] as { committed: string | null } | null;
        if (kafka === null || st.lag !== 0n || st.unapplied !== 0n || typeof st.frontier !== 'bigint') return false;
        if (st.frontier + 1n !== BigInt(kafka.committed ?? -1)) return false;
      }
      return true;
    });
  });
});
