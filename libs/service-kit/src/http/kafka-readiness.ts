import type { TopicSpec, TopicVerifier } from '@qim/bus';
import type { ReadinessCheck } from './readiness';

/**
 * Kafka is ready when the brokers answer a metadata request and every topic has its configured
 * partitions; asked over the verifier's one shared admin connection (never a client per check).
 */
export function kafkaReadiness(verifier: Pick<TopicVerifier, 'verify'>, topics: readonly TopicSpec[]): ReadinessCheck {
  return {
    name: 'kafka',
    check: async () => ({ ok: true, detail: await verifier.verify(topics) }),
  };
}
