import { createTopicsWithLeaders } from '@qim/bus';
import { requireEnv } from './support/e2e-env';
import { KafkaProbe } from './support/kafka-probe';
import { redisCommand } from './support/redis-probe';
import { runToExit } from '@qim/service-stack';
import { ServiceStack } from './support/service-stack';

/**
 * Issue 11 item 5, at process level: in production (`QIM_ENV=production`) both services verify at
 * start-up that their topics have the configured partitions, replication and `min.insync.replicas`;
 * a topic that differs is a refusal (exit 1) naming the topic and the setting. With the setting
 * restored the same production start-up succeeds (the refusal is about the topic, nothing else).
 */
describe('production start-up verifies topic durability', () => {
  const stack = new ServiceStack({ QIM_ENV: 'production' });
  const probe = new KafkaProbe(stack.env);
  const messagesTopic = stack.env['QIM_TOPIC_MESSAGES']!;

  /** Replaces the messages topic (same partitions) by one created with `min.insync.replicas` = `value`. */
  const setMinInsync = async (value: string): Promise<void> => {
    await probe.deleteTopic(messagesTopic);
    const admin = probe.kafka.admin();
    await admin.connect();
    try {
      for (let attempt = 0; ; attempt++) {
        try {
          const created = await createTopicsWithLeaders(admin, {
            topics: [
              {
                topic: messagesTopic,
                numPartitions: Number(stack.env['QIM_MESSAGES_PARTITIONS']),
                replicationFactor: 1,
                configEntries: [{ name: 'min.insync.replicas', value }],
              },
            ],
          });
          if (created) return;
          throw new Error(`${messagesTopic} still exists`);
        } catch (err) {
          // The deletion may still be finishing on the broker.
          if (attempt === 20) throw err;
          await new Promise((r) => setTimeout(r, 500));
        }
      }
    } finally {
      await admin.disconnect();
    }
  };

  const redisUrl = requireEnv('QIM_REDIS_URL');
  let appendfsyncBefore: string | null = null;

  beforeAll(async () => {
    await stack.createTopics();
    appendfsyncBefore = ((await redisCommand(redisUrl, 'CONFIG', 'GET', 'appendfsync')) as string[])[1]!;
    await redisCommand(redisUrl, 'CONFIG', 'SET', 'appendfsync', 'always');
  }, 120_000);
  afterAll(async () => {
    try {
      await stack.down();
    } finally {
      if (appendfsyncBefore !== null) await redisCommand(redisUrl, 'CONFIG', 'SET', 'appendfsync', appendfsyncBefore);
    }
  }, 60_000);

  it('refuses the writer in production while the Redis runs appendfsync everysec, naming the setting', async () => {
    await redisCommand(redisUrl, 'CONFIG', 'SET', 'appendfsync', 'everysec');
    let exit: Awaited<ReturnType<typeof runToExit>>;
    let output: string;
    try {
      exit = await runToExit('writer', stack.entry.writer, { ...stack.env, QIM_HTTP_HOST: '127.0.0.1', QIM_HTTP_PORT: '0' }, [], 60_000);
      output = exit.output;
    } finally {
      await redisCommand(redisUrl, 'CONFIG', 'SET', 'appendfsync', 'always');
    }
    const named = /appendfsync is 'everysec': QIM_ENV=production requires appendfsync always/.test(output);
    expect({ code: exit.code === 0 ? 0 : 'non-zero', reason: named ? 'named' : output.slice(-3000) }).toEqual({ code: 'non-zero', reason: 'named' });
  });

  it.each(['writer', 'mailbox'] as const)('refuses (%s) a messages topic whose min.insync.replicas differs from the configuration', async (service) => {
    await setMinInsync('2');
    const { code: exitCode, output } = await runToExit(
      service,
      stack.entry[service],
      { ...stack.env, QIM_HTTP_HOST: '127.0.0.1', QIM_HTTP_PORT: '0' },
      [],
      60_000,
    );
    const reason = new RegExp(`start-up refused: topic ${messagesTopic.replace(/\./g, '\\.')} has min\\.insync\\.replicas=2, required 1 for replication 1`);
    expect({ code: exitCode, reason: reason.test(output) ? 'named' : output.slice(-3000) }).toEqual({ code: 1, reason: 'named' });
  });

  it('starts the writer in production once the topic has the configured setting', async () => {
    await setMinInsync('1');
    await stack.startWriter();
    expect(stack.writer!.output).toMatch(/writer ready/);
  });
});
