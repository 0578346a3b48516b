/**
 * The environment a writer and a mailbox share in one isolated run: a Redis namespace, topics and
 * Kafka client id of its own (`<prefix>-<run>`, `<prefix>.<run>.*`), so runs never see each
 * other's data, and the short lease, deadline and recovery timings the e2e specs and the drills run
 * with (faults bite within seconds). The caller adds the servers (`QIM_REDIS_URL`,
 * `QIM_KAFKA_BROKERS`, or a Cassandra) and its own settings on top.
 */
export function isolatedEnv(prefix: string, run: string, token: string): Record<string, string> {
  return {
    QIM_ENV: 'test',
    QIM_STORE_BACKEND: 'redis',
    QIM_SERVICE_TOKEN: token,
    QIM_REDIS_NAMESPACE: `${prefix}-${run}`,
    QIM_KAFKA_CLIENT_ID: `${prefix}-${run}`,
    QIM_TOPIC_MESSAGES: `${prefix}.${run}.messages`,
    QIM_TOPIC_DISPATCH: `${prefix}.${run}.dispatch`,
    QIM_MESSAGES_PARTITIONS: '2',
    QIM_MAILBOX_SHARDS: '2',
    QIM_MAILBOX_EPOCH: '1',
    QIM_RECOVERY_INTERVAL_MS: '500',
    QIM_SEND_DEADLINE_MS: '5000',
    QIM_RECOVERY_GRACE_MS: '6000',
    QIM_LEASE_TTL_MS: '3000',
  };
}
