import { hex } from './support/e2e-env';
import { eventually } from './support/http-client';
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
  const entriesOf = async (u: string) => {
    const r = await stack.mailboxApi.call('GET', `/v1/mailboxes/${u}/entries?limit=500`, T, u);
    expect(r.status).toBe(200);
    return r.body.entries as { events: { message: { message_id: string } }[] }[];
  };

  /** One send; a 503 (the writer's send deadline on a loaded machine) is retried as a device would: same request, same answer. */
  const send = async (i: number) => {
    for (let attempt = 0; ; attempt++) {
      const r = await stack.writerApi.call('POST', '/v1/messages', T, members[i % members.length]!, {
        client_message_id: hex(0xa000 + i),
        conversation_id: CONV,
        body: Buffer.from(`burst ${i}`).toString('base64'),
      });
      if (r.status !== 503 || attempt === 5) return r;
      await new Promise((res) => setTimeout(res, 500));
    }
  };

  beforeAll(async () => {
    await stack.up();
    await stack.writerApi.call('PUT', `/v1/conversations/${CONV}/members`, T, null, { members });
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
    expect(sends.filter((s) => s.status !== 200).slice(0, 3)).toEqual([]);
    const ids = new Set(sends.map((s) => s.body.message_id as string));
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
      const got = (await entriesOf(u)).map((e) => e.events[0]!.message.message_id);
      expect(got).toHaveLength(MESSAGES);
      expect(new Set(got)).toEqual(ids);
    }
    await eventually('committed dispatch offsets reach the end of both shards, behind the frontier', async () => {
      for (const s of [0, 1]) {
        const st = await stack.mailboxApi.call('GET', `/v1/shards/${s}/status`, T, members[0]!);
        if (st.status !== 200 || st.body.kafka === null || st.body.kafka.lag !== '0' || st.body.kafka.unapplied !== '0') return false;
        if (BigInt(st.body.frontier) + 1n !== BigInt(st.body.kafka.committed)) return false;
      }
      return true;
    });
  });
});
