import { randomBytes } from 'node:crypto';
import { TopicVerifier, createKafka, ensureTopics } from '@qim/bus';
import type { TopicSpec } from '@qim/bus';
import { freePort } from '@qim/store-core/testing';
import { WITH_TOKEN, opsApp } from '../testing/ops-app';
import { kafkaReadiness } from './kafka-readiness';

/**
 * `/readyz` over real servers: a broker at a closed port turns readiness red (a Redis store's readiness:
 * libs/backends/src/readiness-redis.spec.ts); the public answer names nothing, the token's answer says
 * what failed; a flood of probes uses one shared Kafka admin connection.
 */
const brokers = process.env['QIM_KAFKA_BROKERS'];
if (!brokers) throw new Error('QIM_KAFKA_BROKERS is not set: eval "$(tools/infra/infra env)"');
jest.setTimeout(60_000);

describe('/readyz over real servers', () => {
  it('a broker at a closed port: 503, the public answer without the address, the detail with the token', async () => {
    const port = await freePort();
    const kafka = createKafka({ brokers: [`127.0.0.1:${port}`], clientId: 'qimtest-readyz', connectionTimeoutMs: 300, retries: 0 });
    const verifier = new TopicVerifier(kafka);
    const app = await opsApp([kafkaReadiness(verifier, [{ topic: 'qim.none', partitions: 1, replicationFactor: 1 }])]);
    const pub = await app.inject({ url: '/readyz' });
    expect([pub.statusCode, pub.json()]).toEqual([503, { status: 'not_ready' }]);
    expect(pub.body).not.toContain(String(port));
    await app.close();
    const fresh = await opsApp([kafkaReadiness(verifier, [{ topic: 'qim.none', partitions: 1, replicationFactor: 1 }])]);
    const detailed = (await fresh.inject({ url: '/readyz', headers: WITH_TOKEN })).json();
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
    const flood = await Promise.all(Array.from({ length: 40 }, () => app.inject({ url: '/readyz', headers: WITH_TOKEN })));
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
});
