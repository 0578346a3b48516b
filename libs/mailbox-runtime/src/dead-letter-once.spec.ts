import { randomBytes } from 'node:crypto';
import type { ConsumedPage, ConsumedRecord } from '@qim/bus';
import { DeadLetterSink, GroupOffsetsReader, createKafka, deadLetterTopicOf, ensureTopics } from '@qim/bus';
import type { Id128, MailboxStore } from '@qim/store-core';
import { UnavailableError, encodeDispatchRecord } from '@qim/store-core';
import { ManualClock } from '@qim/store-core/testing';
import { memoryMailboxBackend } from '@qim/backends';
import { FrontierBoard } from './frontier-board';
import { MailboxMetrics } from './mailbox-metrics';
import { dispatchRecordsOf } from './router-plan';
import { ShardWorker } from './shard-worker';
import { specMessage } from './testing/spec-message';

/**
 * Issue 28 item 10, over the real Kafka of `tools/infra`: a page holding a poison record fails on a
 * store error and is retried; the poison record is dead-lettered once, not once per attempt.
 */
const brokers = process.env['QIM_KAFKA_BROKERS'];
if (!brokers) throw new Error('QIM_KAFKA_BROKERS is not set: run `tools/infra/infra up kafka` and `eval "$(tools/infra/infra env)"`');

jest.setTimeout(60_000);

const hex = (n: number) => n.toString(16).padStart(32, '0') as Id128;
const clock = new ManualClock(1_700_000_000_000n);
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

function dispatchValue(seq: bigint): Buffer {
  const record = specMessage(hex(0xa1), hex(1), seq, clock.nowMs());
  return encodeDispatchRecord(dispatchRecordsOf({ record, recipients: [hex(1), hex(2)] }, 1)[0]!);
}

describe('dead-letter writes across page retries (real Kafka)', () => {
  it('a poison record in a page that fails on a store error, then twice more, is dead-lettered exactly once', async () => {
    const run = randomBytes(4).toString('hex');
    const topic = `qimtest.dlq-once.${run}`;
    const kafka = createKafka({ brokers: brokers.split(','), clientId: `qimtest-${run}` });
    await ensureTopics(kafka, [{ topic: deadLetterTopicOf(topic), partitions: 1, replicationFactor: 1 }]);
    const sink = new DeadLetterSink(kafka);
    await sink.connect();

    const backend = memoryMailboxBackend({ epoch: 2, gc: { entryRetentionMs: 86_400_000n, dispatchDedupeMs: 8n * 86_400_000n }, applyConcurrency: 1 }, clock);
    const real: MailboxStore = await backend.storeFor(0);
    let failures = 2;
    const store = new Proxy(real, {
      get(target, name, receiver) {
        if (name !== 'applyPage') return Reflect.get(target, name, receiver) as unknown;
        return (page: Parameters<MailboxStore['applyPage']>[0]) => {
          if (failures-- > 0) return Promise.reject(new UnavailableError('store down'));
          return target.applyPage(page);
        };
      },
    });
    const worker = new ShardWorker({
      storeFor: async () => store,
      board: new FrontierBoard(),
      metrics: new MailboxMetrics(false),
      log: silent,
      onPoison: sink.handler,
    });

    const rec = (offset: bigint, value: Buffer): ConsumedRecord => ({ topic, partition: 0, offset, key: Buffer.from('k'), value });
    const page: ConsumedPage = {
      topic,
      partition: 0,
      fromOffset: 0n,
      toOffset: 2n,
      records: [rec(0n, dispatchValue(1n)), rec(1n, Buffer.from('poison')), rec(2n, dispatchValue(2n))],
    };
    await expect(worker.handlePage(page)).rejects.toThrow('store down');
    await expect(worker.handlePage(page)).rejects.toThrow('store down');
    await worker.handlePage(page);
    await sink.close();

    const reader = new GroupOffsetsReader(kafka);
    const ends = await reader.offsets(`qimtest-${run}`, deadLetterTopicOf(topic));
    await reader.close();
    expect(ends.map((p) => p.end)).toEqual([1n]);
    expect((await real.frontier()).offset).toBe(2n);
  });
});
