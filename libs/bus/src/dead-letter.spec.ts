import { randomBytes } from 'node:crypto';
import type { Kafka } from 'kafkajs';
import { DeadLetterSink, deadLetterTopicOf, parseDeadLetter } from './dead-letter';
import { createKafka } from './kafka-factory';
import { readTopic } from './testing/topic-reader';
import { ensureTopics } from './topics';

/** Over the real Kafka of `tools/infra`: a poison record is kept in `<topic>.dlq` with where it was, why, and its exact bytes. */
const brokers = process.env['QIM_KAFKA_BROKERS'];
if (!brokers) throw new Error('QIM_KAFKA_BROKERS is not set: run `tools/infra/infra up kafka` and `eval "$(tools/infra/infra env)"`');

jest.setTimeout(60_000);

describe('DeadLetterSink (real Kafka)', () => {
  let kafka: Kafka;
  let topic: string;

  beforeEach(async () => {
    const run = randomBytes(4).toString('hex');
    topic = `qimtest.dlq.${run}`;
    kafka = createKafka({ brokers: brokers.split(','), clientId: `qimtest-${run}` });
    await ensureTopics(kafka, [{ topic: deadLetterTopicOf(topic), partitions: 1, replicationFactor: 1 }]);
  });
  afterEach(async () => {
    const admin = kafka.admin();
    await admin.connect();
    await admin.deleteTopics({ topics: [deadLetterTopicOf(topic)] }).catch(() => undefined);
    await admin.disconnect();
  });

  it('produces the envelope (topic, partition, offset, error, key, headers, value) and resolves once acknowledged', async () => {
    const sink = new DeadLetterSink(kafka, () => 1_234);
    await sink.connect();
    const value = Buffer.from([0xff, 0x00, 0x13, 0x37]);
    await Promise.all([
      sink.handler({ topic, partition: 2, offset: 41n, key: Buffer.from('k'), value, headers: { h: Buffer.from([1, 2]) } }, new TypeError('bad version 9')),
      sink.handler({ topic, partition: 0, offset: 7n, key: null, value: Buffer.alloc(0) }, 'empty'),
    ]);
    await sink.close();
    const kept = [...(await readTopic(kafka, deadLetterTopicOf(topic))).values()].map(parseDeadLetter);
    expect(kept).toEqual([
      {
        topic,
        partition: 2,
        offset: '41',
        error: 'TypeError: bad version 9',
        key: Buffer.from('k').toString('base64'),
        headers: { h: 'AQI=' },
        value: value.toString('base64'),
        deadLetteredAt: 1_234,
      },
      { topic, partition: 0, offset: '7', error: 'empty', key: null, headers: {}, value: '', deadLetteredAt: 1_234 },
    ]);
    expect(() => parseDeadLetter(Buffer.from('{"x":1}'))).toThrow('not a dead-letter envelope');
  });

  it('keeps one record per poison record: the same record again (a retried page) and an earlier offset of its partition send nothing', async () => {
    const sink = new DeadLetterSink(kafka, () => 1);
    await sink.connect();
    const poison = (partition: number, offset: bigint) => ({ topic, partition, offset, key: null, value: Buffer.from(`p${partition}:${offset}`) });
    await sink.handler(poison(0, 5n), 'bad');
    await Promise.all([sink.handler(poison(0, 5n), 'bad again'), sink.handler(poison(0, 3n), 'bad')]);
    await sink.handler(poison(1, 5n), 'bad');
    await sink.handler(poison(0, 9n), 'bad');
    await sink.handler(poison(0, 9n), 'bad');
    await sink.close();
    const kept = [...(await readTopic(kafka, deadLetterTopicOf(topic))).values()].map(parseDeadLetter);
    expect(kept.map((e) => `${e.partition}:${e.offset}:${e.error}`)).toEqual(['0:5:bad', '1:5:bad', '0:9:bad']);
  });
});
