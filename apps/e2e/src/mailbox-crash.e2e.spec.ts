import { hex } from './support/e2e-env';
import { eventually } from './support/http-client';
import { ServiceStack } from './support/service-stack';

/**
 * kill -9 of the mailbox while it dispatches a burst of messages to a large conversation; after a
 * restart every recipient has exactly one entry per message and the committed offsets catch up.
 */
describe('mailbox SIGKILL mid-dispatch (redis backend, kafka)', () => {
  const stack = new ServiceStack({ QIM_MAILBOX_CHUNK_SIZE: '1' });
  const T = hex(0xc4a5);
  const CONV = hex(0xc0ffee);
  const members = Array.from({ length: 24 }, (_, i) => hex(0x200 + i));
  const MESSAGES = 12;

  beforeAll(async () => {
    await stack.up();
    await stack.writerApi.call('PUT', `/v1/conversations/${CONV}/members`, T, null, { members });
  });
  afterAll(() => stack.down());

  it('recovers with exactly one entry per recipient and message', async () => {
    const sends = await Promise.all(
      Array.from({ length: MESSAGES }, (_, i) =>
        stack.writerApi.call('POST', '/v1/messages', T, members[i % members.length]!, {
          client_message_id: hex(0xa000 + i),
          conversation_id: CONV,
          body: Buffer.from(`burst ${i}`).toString('base64'),
        }),
      ),
    );
    expect(sends.map((s) => s.status)).toEqual(Array(MESSAGES).fill(200));
    const ids = new Set(sends.map((s) => s.body.message_id as string));

    await new Promise((r) => setTimeout(r, 300));
    let deliveredBeforeKill = 0;
    for (const u of members) {
      const r = await stack.mailboxApi.call('GET', `/v1/mailboxes/${u}/entries?limit=500`, T, u);
      deliveredBeforeKill += r.status === 200 ? r.body.entries.length : 0;
    }
    const killed = await stack.mailbox!.stop('SIGKILL');
    // The kill must land mid-dispatch, or this spec would prove nothing about recovery.
    expect(deliveredBeforeKill).toBeLessThan(MESSAGES * members.length);
    expect(killed.signal).toBe('SIGKILL');
    await stack.startMailbox();

    await eventually(
      'every member has every message exactly once',
      async () => {
        for (const u of members) {
          const r = await stack.mailboxApi.call('GET', `/v1/mailboxes/${u}/entries?limit=500`, T, u);
          if (r.status !== 200 || r.body.entries.length < MESSAGES) return false;
        }
        return true;
      },
      120_000,
    );
    for (const u of members) {
      const r = await stack.mailboxApi.call('GET', `/v1/mailboxes/${u}/entries?limit=500`, T, u);
      const got = r.body.entries.map((e: { events: { message: { message_id: string } }[] }) => e.events[0]!.message.message_id);
      expect(got).toHaveLength(MESSAGES);
      expect(new Set(got)).toEqual(ids);
    }
    await eventually('committed dispatch offsets reach the end of both shards', async () => {
      for (const s of [0, 1]) {
        const st = await stack.mailboxApi.call('GET', `/v1/shards/${s}/status`, T, members[0]!);
        if (st.status !== 200 || st.body.kafka === null || st.body.kafka.lag !== '0') return false;
      }
      return true;
    });
  });
});
