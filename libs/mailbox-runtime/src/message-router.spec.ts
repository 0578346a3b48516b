import type { ConsumedRecord } from '@qim/bus';
import type { DispatchRecord, Id128, MessageRecord } from '@qim/store-core';
import { encodeMessageEvent, shardOf } from '@qim/store-core';
import { MailboxMetrics } from './mailbox-metrics';
import { MessageRouter } from './message-router';
import { specMessage } from './testing/spec-message';

const hex = (n: number) => n.toString(16).padStart(32, '0') as Id128;
const T = hex(0xa1);
const users = Array.from({ length: 12 }, (_, i) => hex(i + 1));
const record = (seq: bigint): MessageRecord => specMessage(T, users[0]!, seq, 1_700_000_000_000n);
const rec = (offset: bigint, value: Buffer): ConsumedRecord => ({ topic: 'm', partition: 1, offset, key: null, value });
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

describe('MessageRouter', () => {
  it('routes a whole page in one produce call, leaving out (and reporting) what cannot be decoded', async () => {
    const sends: DispatchRecord[][] = [];
    const poisoned: bigint[] = [];
    const metrics = new MailboxMetrics(false);
    const router = new MessageRouter({
      producer: { send: async (d) => (sends.push([...d]), []) },
      shardCount: 4,
      metrics,
      log: silent,
      onPoison: async (r) => void poisoned.push(r.offset),
    });
    const shards = new Set(users.map((u) => shardOf(T, u, 4))).size;
    await router.handlePage({
      topic: 'm',
      partition: 1,
      fromOffset: 10n,
      toOffset: 12n,
      records: [
        rec(10n, encodeMessageEvent({ record: record(1n), recipients: users })),
        rec(11n, Buffer.from('junk')),
        rec(12n, encodeMessageEvent({ record: record(2n), recipients: users })),
      ],
    });
    expect(sends).toHaveLength(1);
    expect(sends[0]!).toHaveLength(2 * shards);
    expect(new Set(sends[0]!.map((d) => d.seq))).toEqual(new Set([1n, 2n]));
    expect(poisoned).toEqual([11n]);
    expect((await metrics.routedDispatches.get()).values[0]!.value).toBe(2 * shards);
  });

  it('observes created_at → routed per message once Kafka acknowledged its dispatches, and not before', async () => {
    const metrics = new MailboxMetrics(false);
    let acked = false;
    let seenBeforeAck = -1;
    const routedCount = async () =>
      (await metrics.deliveryStageSeconds.get()).values.find((v) => v.metricName === 'qim_delivery_stage_seconds_count' && v.labels['stage'] === 'routed')
        ?.value ?? 0;
    const router = new MessageRouter({
      producer: {
        send: async () => {
          seenBeforeAck = await routedCount();
          acked = true;
          return [];
        },
      },
      shardCount: 4,
      metrics,
      log: silent,
      now: () => 1_700_000_000_040,
    });
    await router.handlePage({
      topic: 'm',
      partition: 1,
      fromOffset: 0n,
      toOffset: 1n,
      records: [rec(0n, encodeMessageEvent({ record: record(1n), recipients: users })), rec(1n, encodeMessageEvent({ record: record(2n), recipients: users }))],
    });
    expect(acked).toBe(true);
    expect(seenBeforeAck).toBe(0);
    expect(await routedCount()).toBe(2);
    const values = (await metrics.deliveryStageSeconds.get()).values;
    // 40 ms after created_at: counted in the 0.05 s bucket, not in the 0.035 s one.
    const bucket = (le: number) =>
      values.find(
        (v) =>
          v.metricName === 'qim_delivery_stage_seconds_bucket' && v.labels['stage'] === 'routed' && (v.labels as Record<string, string | number>)['le'] === le,
      )?.value;
    expect(bucket(0.035)).toBe(0);
    expect(bucket(0.05)).toBe(2);
  });

  it('fails the page when the produce fails (nothing is committed; the consumer reads it again)', async () => {
    const router = new MessageRouter({
      producer: {
        send: async () => {
          throw new Error('broker down');
        },
      },
      shardCount: 2,
      metrics: new MailboxMetrics(false),
      log: silent,
    });
    await expect(
      router.handlePage({
        topic: 'm',
        partition: 0,
        fromOffset: 0n,
        toOffset: 0n,
        records: [rec(0n, encodeMessageEvent({ record: record(1n), recipients: users }))],
      }),
    ).rejects.toThrow('broker down');
  });
});
