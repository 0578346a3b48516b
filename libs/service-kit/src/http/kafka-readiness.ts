import type { TopicSpec } from '@qim/bus';
import { verifyTopics } from '@qim/bus';
import type { ReadinessCheck } from './readiness';

type KafkaLike = Parameters<typeof verifyTopics>[0];

/** Kafka is ready when the brokers answer a metadata request and every topic has its configured partitions. */
export function kafkaReadiness(kafka: KafkaLike, topics: readonly TopicSpec[]): ReadinessCheck {
  return {
    name: 'kafka',
    check: async () => ({ ok: true, detail: await verifyTopics(kafka, topics) }),
  };
}
