import { KafkaProbe } from './support/kafka-probe';
import type { Exit } from '@qim/service-stack';
import { ServiceStack } from './support/service-stack';

/**
 * Issue 11 item 6, at process level: a running mailbox whose consumer kafkajs stopped for good exits
 * non-zero by itself, with the reason in its log (orchestrators restart processes, not unready pods).
 *
 * The fault: kafkajs restarts its consumer after every retriable error, also while its broker is
 * down for minutes (tried: a killed broker gives `restart: true` crashes for as long as it stays
 * down), so a broker outage is not a way to stop it for good. A non-retriable group error is: the
 * mailbox process is frozen (SIGSTOP) until the broker evicts it from its router group, a member of
 * another assignment protocol takes the group meanwhile, and on SIGCONT the mailbox's rejoin is
 * refused with INCONSISTENT_GROUP_PROTOCOL, which kafkajs does not restart from.
 */
const FOREIGN_PROTOCOL = 'QimE2eForeignAssigner';

/** Kafka's consumer-protocol member metadata (version, subscribed topics, user data). */
function memberMetadata(topics: readonly string[]): Buffer {
  const parts = [int16(0), int32(topics.length)];
  for (const t of topics) parts.push(int16(Buffer.byteLength(t)), Buffer.from(t));
  parts.push(int32(0));
  return Buffer.concat(parts);
}

/** An empty member assignment (version 0, no topics, no user data): the foreign member only holds the group. */
const EMPTY_ASSIGNMENT = Buffer.concat([int16(0), int32(0), int32(0)]);

function int16(n: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeInt16BE(n);
  return b;
}

function int32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('a mailbox whose consumer kafkajs stopped for good', () => {
  const stack = new ServiceStack();
  const probe = new KafkaProbe(stack.env);
  const routerGroup = `${stack.env['QIM_KAFKA_CLIENT_ID']}-router`;
  const messagesTopic = stack.env['QIM_TOPIC_MESSAGES']!;
  const foreign = probe.kafka.consumer({
    groupId: routerGroup,
    sessionTimeout: 30_000,
    partitionAssigners: [
      () => ({
        name: FOREIGN_PROTOCOL,
        version: 0,
        assign: async ({ members }) => members.map((m) => ({ memberId: m.memberId, memberAssignment: EMPTY_ASSIGNMENT })),
        protocol: ({ topics }) => ({ name: FOREIGN_PROTOCOL, metadata: memberMetadata(topics) }),
      }),
    ],
  });
  let frozen = false;

  beforeAll(async () => {
    await stack.createTopics();
    await stack.startMailbox();
  }, 180_000);
  afterAll(async () => {
    if (frozen) process.kill(stack.mailbox!.pid, 'SIGCONT');
    await foreign.disconnect().catch(() => undefined);
    await stack.down();
  }, 90_000);

  async function groupState(): Promise<{ state: string; members: number }> {
    const admin = probe.kafka.admin();
    await admin.connect();
    try {
      const [g] = (await admin.describeGroups([routerGroup])).groups;
      return { state: g?.state ?? 'unknown', members: g?.members.length ?? -1 };
    } finally {
      await admin.disconnect();
    }
  }

  it('exits non-zero with the reason in its log', async () => {
    const mailbox = stack.mailbox!;
    let exit: Exit | null = null;
    void mailbox.exited.then((e) => (exit = e));
    expect(await groupState()).toMatchObject({ state: 'Stable', members: 1 });

    process.kill(mailbox.pid, 'SIGSTOP');
    frozen = true;
    // Evicted once its session (15 s) expires without heartbeats.
    const evictedBy = Date.now() + 90_000;
    while ((await groupState()).state !== 'Empty') {
      if (Date.now() > evictedBy) throw new Error(`router group not empty: ${JSON.stringify(await groupState())}`);
      await sleep(1_000);
    }

    let joined = false;
    foreign.on(foreign.events.GROUP_JOIN, () => (joined = true));
    await foreign.connect();
    await foreign.subscribe({ topics: [messagesTopic] });
    await foreign.run({ autoCommit: false, eachBatch: async () => undefined });
    const joinBy = Date.now() + 60_000;
    while (!joined) {
      if (Date.now() > joinBy) throw new Error('the foreign member did not join the router group');
      await sleep(200);
    }

    process.kill(mailbox.pid, 'SIGCONT');
    frozen = false;
    const exitBy = Date.now() + 120_000;
    while (exit === null) {
      if (Date.now() > exitBy) throw new Error(`mailbox still running after its router group refused it:\n${mailbox.output.slice(-4000)}`);
      await sleep(500);
    }

    expect({ code: (exit as Exit).code, signal: (exit as Exit).signal }).toEqual({ code: 1, signal: null });
    const reason = new RegExp(`consumer ${routerGroup} of ${messagesTopic.replace(/\./g, '\\.')} stopped for good: .*protocol`, 'i');
    const stopped = mailbox.output.split('\n').find((l) => l.includes('"msg":"stopped"')) ?? '';
    expect({ stopped: reason.test(stopped) ? 'with the reason' : stopped || mailbox.output.slice(-3000) }).toEqual({ stopped: 'with the reason' });
  });
});
