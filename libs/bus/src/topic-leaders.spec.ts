import { KafkaJSProtocolError } from 'kafkajs';
import type { TopicMetadataSource } from './topics';
import { awaitTopicLeaders } from './topics';

/**
 * The wait after creating topics (our retry rule, no server behaviour asserted): a broker that has
 * not yet cached a new topic answers UNKNOWN_TOPIC_OR_PARTITION (what failed CI through kafkajs's
 * `waitForLeaders`); the wait retries that and LEADER_NOT_AVAILABLE, fails on anything else at
 * once, and fails naming the topic when the leaders never come.
 */
const protocolError = (type: string, code: number): Error => Object.assign(new KafkaJSProtocolError(`${type} from the broker`), { type, code });

function source(
  answers: ReadonlyArray<Error | number[]>,
  offsetAnswers: ReadonlyArray<Error | null> = [null],
): TopicMetadataSource & { calls: number; offsetCalls: number } {
  const s = {
    calls: 0,
    offsetCalls: 0,
    fetchTopicOffsets: async () => {
      const a = offsetAnswers[Math.min(s.offsetCalls, offsetAnswers.length - 1)];
      s.offsetCalls++;
      if (a) throw a;
      return [];
    },
    fetchTopicMetadata: async () => {
      const a = answers[Math.min(s.calls, answers.length - 1)]!;
      s.calls++;
      if (a instanceof Error) throw a;
      return {
        topics: [
          {
            name: 't1',
            partitions: a.map((leader, partitionId) => ({ partitionId, leader, replicas: [1], isr: [1], offlineReplicas: [], partitionErrorCode: 0 })),
          },
        ],
      };
    },
  };
  return s;
}

describe('awaitTopicLeaders', () => {
  it('retries a topic the broker does not know yet, and a partition without a leader, until every partition has one', async () => {
    const s = source([protocolError('UNKNOWN_TOPIC_OR_PARTITION', 3), protocolError('LEADER_NOT_AVAILABLE', 5), [1, -1], [1, 1]]);
    await expect(awaitTopicLeaders(s, ['t1'], { delayMs: 1 })).resolves.toBeUndefined();
    expect(s.calls).toBe(4);
  });

  it('retries a named leader that does not yet serve its partition (ListOffsets answers NOT_LEADER_FOR_PARTITION)', async () => {
    const s = source([[1, 1]], [protocolError('NOT_LEADER_FOR_PARTITION', 6), null]);
    await expect(awaitTopicLeaders(s, ['t1'], { delayMs: 1 })).resolves.toBeUndefined();
    expect(s.offsetCalls).toBe(2);
    expect(s.calls).toBe(2);
  });

  it('fails at once on any other error', async () => {
    const s = source([protocolError('TOPIC_AUTHORIZATION_FAILED', 29), [1]]);
    await expect(awaitTopicLeaders(s, ['t1'], { delayMs: 1 })).rejects.toThrow('TOPIC_AUTHORIZATION_FAILED from the broker');
    expect(s.calls).toBe(1);
  });

  it('fails naming the topics and the last answer when the leaders do not come in time', async () => {
    const s = source([protocolError('UNKNOWN_TOPIC_OR_PARTITION', 3)]);
    await expect(awaitTopicLeaders(s, ['t1'], { delayMs: 5, timeoutMs: 50 })).rejects.toThrow(
      /^topics t1 have no leader after 50 ms \(UNKNOWN_TOPIC_OR_PARTITION: /,
    );
    expect(s.calls).toBeGreaterThan(1);
  });
});
