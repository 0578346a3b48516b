import { spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { KafkaProbe } from './support/kafka-probe';

/**
 * `tools/scenario/qim-local up` tells the truth (issue 28, item 16): a Redis that kept an earlier
 * run's progress while Kafka starts empty makes the mailbox refuse its shards (`topic-recreated`);
 * `up` must then fail, name the refusal and its resolution, and stop the services — not print
 * "ready" and leave a deployment whose syncs stay empty. `qim-local reset` gets it going again.
 * Runs on the shared Redis and Kafka with names of its own (ports 18080/18081, as qim-local uses).
 */
const root = join(__dirname, '..', '..', '..');
const script = join(root, 'tools', 'scenario', 'qim-local');
const id = `qimlocal-e2e-${randomBytes(4).toString('hex')}`;
const env = {
  ...process.env,
  QIM_REDIS_NAMESPACE: id,
  QIM_KAFKA_CLIENT_ID: id,
  QIM_TOPIC_MESSAGES: `${id}.messages`,
  QIM_TOPIC_DISPATCH: `${id}.mailbox.dispatch`,
};

function qimLocal(...args: string[]): { status: number | null; out: string } {
  const r = spawnSync('bash', [script, ...args], { cwd: root, env, encoding: 'utf8', timeout: 240_000 });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

async function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer().once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

describe('qim-local up', () => {
  afterAll(() => {
    qimLocal('down');
    qimLocal('reset');
  });

  it('fails with the refusal and its resolution when Kafka lost what the store remembers, and reset starts over', async () => {
    for (const port of [18080, 18081]) expect(await portFree(port)).toBe(true);
    const first = qimLocal('up');
    expect(first.out).toContain('every shard checked and delivering');
    expect(first.status).toBe(0);
    const scenario = qimLocal('scenario');
    expect(scenario.status).toBe(0);
    expect(qimLocal('down').status).toBe(0);

    // Kafka "started empty": this deployment's topics and groups are gone; the store keeps its frontiers.
    const probe = new KafkaProbe({ QIM_KAFKA_BROKERS: process.env['QIM_KAFKA_BROKERS'] ?? '', QIM_KAFKA_CLIENT_ID: id });
    for (const topic of [env.QIM_TOPIC_MESSAGES, env.QIM_TOPIC_DISPATCH]) await probe.deleteTopic(topic);
    const admin = probe.kafka.admin();
    await admin.connect();
    try {
      const groups = (await admin.listGroups()).groups.map((g) => g.groupId).filter((g) => g.startsWith(`${id}-`));
      await admin.deleteGroups(groups).catch(() => undefined);
    } finally {
      await admin.disconnect();
    }

    const refused = qimLocal('up');
    expect(refused.status).toBe(1);
    expect(refused.out).toMatch(/shard \d refused \(topic-recreated\)/);
    expect(refused.out).toContain('to resolve:');
    expect(refused.out).toContain('tools/scenario/qim-local reset && tools/scenario/qim-local up');
    expect(refused.out).not.toContain('every shard checked and delivering');
    for (const port of [18080, 18081]) expect(await portFree(port)).toBe(true);

    expect(qimLocal('reset').status).toBe(0);
    const again = qimLocal('up');
    expect(again.out).toContain('every shard checked and delivering');
    expect(again.status).toBe(0);
    expect(qimLocal('scenario').status).toBe(0);
  });
});
