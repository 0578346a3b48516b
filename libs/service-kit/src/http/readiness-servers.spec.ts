import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { promisify } from 'node:util';
import { TopicVerifier, createKafka, ensureTopics } from '@qim/bus';
import type { TopicSpec } from '@qim/bus';
import { redisMessageBackend } from '../backend/redis-backend';
import { TOKEN, opsApp } from '../testing/ops-app';
import { kafkaReadiness } from './kafka-readiness';

/**
 * `/readyz` over real servers: a broker at a closed port and a Redis that refuses a command (then
 * stops: a closed port) turn readiness red; the public answer names nothing, the token's answer says
 * what failed; a flood of probes uses one shared Kafka admin connection.
 */
const brokers = process.env['QIM_KAFKA_BROKERS'];
if (!brokers) throw new Error('QIM_KAFKA_BROKERS is not set: eval "$(tools/infra/infra env)"');
jest.setTimeout(60_000);

const run = promisify(execFile);

async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const withToken = { authorization: `Bearer ${TOKEN}` };

describe('/readyz over real servers', () => {
  it('a broker at a closed port: 503, the public answer without the address, the detail with the token', async () => {
    const port = await closedPort();
    const kafka = createKafka({ brokers: [`127.0.0.1:${port}`], clientId: 'qimtest-readyz', connectionTimeoutMs: 300, retries: 0 });
    const verifier = new TopicVerifier(kafka);
    const app = await opsApp([kafkaReadiness(verifier, [{ topic: 'qim.none', partitions: 1, replicationFactor: 1 }])]);
    const pub = await app.inject({ url: '/readyz' });
    expect([pub.statusCode, pub.json()]).toEqual([503, { status: 'not_ready' }]);
    expect(pub.body).not.toContain(String(port));
    await app.close();
    const fresh = await opsApp([kafkaReadiness(verifier, [{ topic: 'qim.none', partitions: 1, replicationFactor: 1 }])]);
    const detailed = (await fresh.inject({ url: '/readyz', headers: withToken })).json();
    expect(detailed.checks.kafka.ok).toBe(false);
    expect(String(detailed.checks.kafka.detail)).toMatch(/ECONNREFUSED|Connection|timed out/);
    await fresh.close();
    await verifier.close();
  });

  it('a flood of probes shares one run and one admin connection, also across runs', async () => {
    const kafka = createKafka({ brokers: brokers.split(','), clientId: `qimtest-readyz-${randomBytes(3).toString('hex')}` });
    const topic: TopicSpec = { topic: `qimtest-readyz-${randomBytes(4).toString('hex')}`, partitions: 2, replicationFactor: 1 };
    await ensureTopics(kafka, [topic]);
    let admins = 0;
    const verifier = new TopicVerifier({ admin: (...a: Parameters<typeof kafka.admin>) => (admins++, kafka.admin(...a)) });
    let now = 0;
    const app = await opsApp([kafkaReadiness(verifier, [topic])], { now: () => now });
    const flood = await Promise.all(Array.from({ length: 40 }, () => app.inject({ url: '/readyz', headers: withToken })));
    expect(flood.map((r) => r.statusCode)).toEqual(flood.map(() => 200));
    expect(flood[0]!.json().checks.kafka.detail).toEqual([{ topic: topic.topic, created: false, partitions: 2 }]);
    now += 5_000;
    expect((await app.inject({ url: '/readyz' })).statusCode).toBe(200);
    expect(admins).toBe(1);
    await app.close();
    await verifier.close();
    const admin = kafka.admin();
    await admin.connect();
    await admin.deleteTopics({ topics: [topic.topic] }).catch(() => undefined);
    await admin.disconnect();
  });

  describe('a Redis of its own', () => {
    let server: ChildProcess;
    let port: number;
    beforeAll(async () => {
      port = await closedPort();
      server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
      for (let i = 0; ; i++) {
        const up = await run('redis-cli', ['-p', String(port), 'PING']).then((r) => r.stdout.trim() === 'PONG', () => false);
        if (up) break;
        if (i > 100) throw new Error('redis-server did not start');
        await new Promise((r) => setTimeout(r, 50));
      }
    });
    afterAll(() => {
      if (server.exitCode === null) server.kill('SIGKILL');
    });

    it('refusing the readiness command, then gone (a closed port): 503 without driver text publicly, the Redis error with the token', async () => {
      const backend = await redisMessageBackend({ url: `redis://127.0.0.1:${port}`, namespace: 'qimtest', env: 'test' }, () => undefined);
      let now = 0;
      const app = await opsApp([backend.readiness], { now: () => now });
      try {
        expect((await app.inject({ url: '/readyz' })).statusCode).toBe(200);

        await run('redis-cli', ['-p', String(port), 'ACL', 'SETUSER', 'default', '-info']);
        now += 5_000;
        const pub = await app.inject({ url: '/readyz' });
        expect([pub.statusCode, pub.json()]).toEqual([503, { status: 'not_ready' }]);
        const detail = (await app.inject({ url: '/readyz', headers: withToken })).json();
        expect(detail.checks.store).toEqual({ ok: false, detail: expect.objectContaining({ reason: expect.stringMatching(/NOPERM/) }) });

        const exited = new Promise((resolve) => server.once('exit', resolve));
        server.kill('SIGKILL');
        await exited;
        now += 5_000;
        const gone = await app.inject({ url: '/readyz' });
        expect([gone.statusCode, gone.json()]).toEqual([503, { status: 'not_ready' }]);
        expect(gone.body).not.toContain(String(port));
      } finally {
        await app.close();
        await backend.close().catch(() => undefined);
      }
    });
  });
});
