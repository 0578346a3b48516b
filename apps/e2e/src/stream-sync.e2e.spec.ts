import type { QimClient, SyncPage } from '@qim/client';
import { hex } from './support/e2e-env';
import { ServiceStack } from './support/service-stack';

/**
 * The streamed sync (`GET /v1/mailboxes/:user/stream`, `client.stream()`) over the real services
 * (Redis + Kafka): a device that follows its mailbox by streams, reconnecting from its cursor each
 * time a stream ends (a short QIM_SYNC_STREAM_MAX_MS, so it ends several times during the test),
 * receives every message sent to it exactly once while the sends race its streams (concurrent sends
 * of one conversation may be delivered in commit order, not seq order, so the check is on the set and
 * the count).
 */
describe('streamed sync against the running stack', () => {
  const stack = new ServiceStack({ QIM_SYNC_STREAM_MAX_MS: '1500', QIM_SYNC_MAX_WAIT_MS: '1000' });
  const T = hex(0x57e4);
  const CONV = hex(0xc057e4);
  const [alice, bob] = [hex(0xa11ce), hex(0xb0b)];
  let client: QimClient;

  beforeAll(async () => {
    await stack.up();
    client = stack.client(T, alice);
    await client.addMembers(CONV, [alice, bob]);
  });
  afterAll(() => stack.down());

  it('delivers every message exactly once across stream ends and reconnects', async () => {
    const device = client.as(bob);
    const stop = new AbortController();
    const seen: bigint[] = [];
    let streams = 0;
    let after: bigint | null = null;
    const follow = (async () => {
      while (!stop.signal.aborted) {
        streams++;
        for await (const page of device.stream({ after, limit: 7, signal: stop.signal }) as AsyncGenerator<SyncPage>) {
          for (const e of page.entries) for (const ev of e.events) if (ev.message) seen.push(ev.message.seq);
          after = page.nextAfter;
        }
      }
    })();
    const sent: bigint[] = [];
    for (let round = 0; round < 6; round++) {
      const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => client.send({ conversationId: CONV, body: `r${round}m${i}` })));
      sent.push(...answers.map((a) => a.seq));
      await new Promise((r) => setTimeout(r, 500));
    }
    const deadline = Date.now() + 60_000;
    while (seen.length < sent.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    // Past the last stream's life: a stream ended and the device came back from its cursor.
    await new Promise((r) => setTimeout(r, 1_600));
    stop.abort();
    await follow;
    const bySeq = (a: bigint, b: bigint): number => (a < b ? -1 : a > b ? 1 : 0);
    expect([...seen].sort(bySeq)).toEqual([...sent].sort(bySeq));
    expect(streams).toBeGreaterThan(2);
  });
});
