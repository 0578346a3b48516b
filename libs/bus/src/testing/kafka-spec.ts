import { randomUUID } from 'node:crypto';
import type { ITopicConfig, Kafka } from 'kafkajs';
import { createTopicsWithLeaders } from '../topics';

/** The shared Kafka of `tools/infra` (`QIM_KAFKA_BROKERS`); missing → the spec fails, never skips. */
export function specBrokers(): string[] {
  const v = process.env['QIM_KAFKA_BROKERS'];
  if (!v) throw new Error('QIM_KAFKA_BROKERS is not set: run `tools/infra/infra up kafka` and `eval "$(tools/infra/infra env)"`');
  return v.split(',');
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Polls `probe` every `intervalMs` until it holds, or fails after `timeoutMs` naming `what`. */
export async function until(what: string, probe: () => boolean | Promise<boolean>, timeoutMs = 30_000, intervalMs = 50): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(intervalMs);
  }
}

/** Creates a fresh topic `<prefix>-<uuid>` (its leaders elected) with `config`; returns its name. */
export async function createSpecTopic(kafka: Kafka, prefix: string, config: Omit<ITopicConfig, 'topic'>): Promise<string> {
  const topic = `${prefix}-${randomUUID()}`;
  const admin = kafka.admin();
  await admin.connect();
  try {
    await createTopicsWithLeaders(admin, { topics: [{ topic, ...config }] });
  } finally {
    await admin.disconnect();
  }
  return topic;
}

/** Deletes a spec's topic (best effort: the spec's own verdict stands). */
export async function deleteSpecTopic(kafka: Kafka, topic: string): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
  await admin.disconnect();
}
