/**
 * The writer's membership read (one `SMEMBERS` per send) through the store — `RedisWriterCoordination`
 * `.membership.members`, whose plain commands go out pre-encoded — against the raw driver call
 * (ioredis `smembersBuffer`, auto-pipelined) on the same server and key, interleaved rounds at 1 and
 * 16 in flight: client CPU µs per call and calls/s, and ours ÷ raw.
 *   eval "$(tools/infra/infra env)"; tools/bench/run.sh redis-membership [--calls 20000] [--rounds 3]
 * The server as the services take it (QIM_REDIS_URL, or QIM_REDIS_CLUSTER_NODES for a cluster); the
 * coordination opens through `@qim/backends` (`openCoordination`), the raw client through its testing entry.
 */
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import type { Id128 } from '@qim/store-core';
import { openCoordination } from '@qim/backends';
import { backendConfigFromEnv, connectRawRedis, redisServers } from '@qim/backends/testing';
import { flag, measureInFlight } from './in-flight';

async function main(): Promise<void> {
  const calls = flag('calls', 20_000),
    rounds = flag('rounds', 3);
  const namespace = `bench-membership-${randomBytes(4).toString('hex')}`;
  const cfg = { ...backendConfigFromEnv('redis'), namespace };
  const coordination = await openCoordination(cfg, 'bench', () => undefined);
  const raw = await connectRawRedis(cfg);
  try {
    const tenant = randomBytes(16).toString('hex') as Id128,
      conversation = randomBytes(16).toString('hex') as Id128;
    const users = [0, 1, 2].map(() => randomBytes(16).toString('hex') as Id128);
    await coordination.membership.add(tenant, conversation, users, 100);
    const keys = (await Promise.all(redisServers(raw).map((server) => server.keys(`${namespace}*`)))).flat();
    if (keys.length !== 1) throw new Error(`expected one membership key under ${namespace}, found ${keys.length}`);
    const key = keys[0]!;
    if ((await raw.smembersBuffer(key)).length !== 3) throw new Error('raw read does not see the three members');
    const ours = (): Promise<unknown> => coordination.membership.members(tenant, conversation);
    const driver = (): Promise<unknown> => raw.smembersBuffer(key);
    for (const f of [ours, driver]) await measureInFlight(f, 2_000, 16); // warm-up: JIT and connections
    console.log(`${calls} calls × ${rounds} rounds; client CPU µs per call (calls/s); ours = store membership read, raw = ioredis smembersBuffer`);
    for (let r = 1; r <= rounds; r++) {
      for (const inFlight of [1, 16]) {
        const o = await measureInFlight(ours, calls, inFlight);
        const d = await measureInFlight(driver, calls, inFlight);
        console.log(
          `round ${r}, ${String(inFlight).padStart(2)} in flight: ours ${o.usPerCall.toFixed(1)} µs (${o.perSecond.toFixed(0)}/s)  ` +
            `raw ${d.usPerCall.toFixed(1)} µs (${d.perSecond.toFixed(0)}/s)  ` +
            `ours ÷ raw: calls/s ${(o.perSecond / d.perSecond).toFixed(2)}, CPU ${(o.usPerCall / d.usPerCall).toFixed(2)}  ` +
            `load ${loadavg()
              .map((l) => l.toFixed(1))
              .join(' ')}`,
        );
      }
    }
    await raw.del(key);
  } finally {
    raw.disconnect();
    await coordination.close();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
