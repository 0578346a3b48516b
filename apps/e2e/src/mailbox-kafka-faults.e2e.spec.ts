import { hex } from './support/e2e-env';
import { eventually } from './support/eventually';
import { KafkaProbe, adminEntry } from './support/kafka-probe';
import { runToExit } from '@qim/service-stack';
import { ServiceStack } from './support/service-stack';

/**
 * The mailbox over real Kafka faults (issue 11, items 2, 4, 9 and 11): poison records are
 * dead-lettered and never stall a shard; a group ahead of the store and a recreated dispatch topic
 * refuse the shard (its status names the reason and the resolving command; the process stays
 * ready, issue 28 item 2) instead of skipping; the admin command moves the group back and the
 * mailbox resumes.
 */
const T = hex(0xfa17);
const CONV = hex(0xc0de);
const members = Array.from({ length: 6 }, (_, i) => hex(0x300 + i));

function deployment(stack: ServiceStack) {
  let n = 0;
  /** One send; a 503 (the writer's send deadline on a loaded machine) is retried by the client with the same request (6 attempts). */
  const send = async (): Promise<string> => {
    const i = n++;
    const client = stack.client(T, members[i % members.length]!, { retry: { attempts: 6, baseDelayMs: 250, maxDelayMs: 2_000 } });
    return (await client.send({ conversationId: CONV, body: `fault ${i}`, clientMessageId: hex(0xb000 + i) })).messageId;
  };
  const entriesOf = async (u: string): Promise<string[]> =>
    (await stack.client(T, u).syncPage({ limit: 500 })).entries.map((e) => e.events[0]!.message!.messageId);
  const everyoneHas = (ids: readonly string[], timeoutMs = 60_000) =>
    eventually(
      `every member has ${ids.length} messages`,
      async () => {
        for (const u of members) {
          const got = new Set(await entriesOf(u));
          if (!ids.every((id) => got.has(id))) return false;
        }
        return true;
      },
      timeoutMs,
    );
  /** The shard status answer as the service sent it (the fields of the refusal and Kafka progress). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const status = async (shard: number): Promise<any> => (await stack.client().shardStatus(shard)).raw;
  const setUp = async () => {
    await stack.up();
    expect(await stack.client(T).addMembers(CONV, members)).toBe(members.length);
  };
  return { send, entriesOf, everyoneHas, status, setUp };
}

describe('poison records (raw bytes, unknown codec version) in the middle of real traffic', () => {
  const stack = new ServiceStack({ QIM_MAILBOX_PAGE_RECORDS: '5' });
  const d = deployment(stack);
  const probe = new KafkaProbe(stack.env);
  const dispatchTopic = stack.env['QIM_TOPIC_DISPATCH']!;
  const messagesTopic = stack.env['QIM_TOPIC_MESSAGES']!;
  beforeAll(() => d.setUp());
  afterAll(() => stack.down());

  it('dead-letters them with their coordinates, error and bytes, delivers everything else, and the frontier moves past them', async () => {
    const before = [await d.send(), await d.send(), await d.send()];
    await d.everyoneHas(before);

    const valid = [...(await probe.readAll(dispatchTopic)).values()][0]!;
    const futureVersion = Buffer.from(valid);
    futureVersion[3] = 9;
    const garbage = Buffer.from('definitely not a dispatch record');
    const [g0, v0] = await probe.produceRaw(dispatchTopic, 0, [garbage, futureVersion]);
    const [g1] = await probe.produceRaw(dispatchTopic, 1, [Buffer.from([0xff, 0x00])]);
    const [m0] = await probe.produceRaw(messagesTopic, 0, [Buffer.from('not a message event')]);

    const after = [await d.send(), await d.send(), await d.send()];
    await d.everyoneHas([...before, ...after]);

    await eventually('both shards applied up to their end offsets (frontier past the poison records)', async () => {
      for (const s of [0, 1]) {
        const st = await d.status(s);
        if (st.kafka === null || st.kafka.unapplied !== '0' || st.kafka.lag !== '0') return false;
      }
      return true;
    });

    const dispatchDlq = await probe.deadLetters(dispatchTopic);
    const byOffset = (p: number, o: bigint) => dispatchDlq.find((e) => e.partition === p && e.offset === o.toString());
    expect(dispatchDlq).toHaveLength(3);
    expect(byOffset(0, g0!)).toMatchObject({ topic: dispatchTopic, value: garbage.toString('base64'), error: expect.stringMatching(/magic|BAD_MAGIC/i) });
    expect(byOffset(0, v0!)).toMatchObject({ topic: dispatchTopic, value: futureVersion.toString('base64'), error: expect.stringMatching(/version 9/) });
    expect(byOffset(1, g1!)).toMatchObject({ topic: dispatchTopic, value: '/wA=' });
    const messagesDlq = await probe.deadLetters(messagesTopic);
    expect(messagesDlq).toEqual([
      expect.objectContaining({ topic: messagesTopic, partition: 0, offset: m0!.toString(), value: Buffer.from('not a message event').toString('base64') }),
    ]);

    expect(stack.mailbox!.output.match(/poison record skipped/g)).toHaveLength(4);
    const metrics = await (await fetch(`${stack.mailboxUrl}/metrics`)).text();
    expect(metrics).toContain('qim_poison_records_total{role="shard",partition="0",service="mailbox"} 2');
    expect(metrics).toContain('qim_poison_records_total{role="shard",partition="1",service="mailbox"} 1');
    expect(metrics).toContain('qim_poison_records_total{role="router",partition="0",service="mailbox"} 1');
  });
});

describe('the shard group ahead of the store (another backend, a restored store)', () => {
  const stack = new ServiceStack({ QIM_MAILBOX_PAGE_RECORDS: '5' });
  const d = deployment(stack);
  const probe = new KafkaProbe(stack.env);
  const admin = adminEntry();
  const shardGroup = `${stack.env['QIM_KAFKA_CLIENT_ID']}-shards-e${stack.env['QIM_MAILBOX_EPOCH']}`;
  const emptyStore = { QIM_REDIS_NAMESPACE: `${stack.env['QIM_REDIS_NAMESPACE']}-restored` };
  beforeAll(() => d.setUp());
  afterAll(() => stack.down());

  it('commits the final page on SIGTERM, refuses the shards of an empty store with the command, and resumes after it', async () => {
    const first = [await d.send(), await d.send(), await d.send()];
    await d.everyoneHas(first);
    const frontiers = await Promise.all([0, 1].map(async (s) => (await d.status(s)).frontier as string | null));

    const stopped = await stack.mailbox!.stop('SIGTERM');
    expect(stopped.code).toBe(0);
    const committed = await probe.offsets(shardGroup, stack.env['QIM_TOPIC_DISPATCH']!);
    expect(committed.map((p) => p.committed)).toEqual(frontiers.map((f) => (f === null ? null : BigInt(f) + 1n)));
    expect(committed.some((p) => p.committed !== null && p.committed > 0n)).toBe(true);

    // The same topics and groups over a mailbox store without that progress.
    await stack.launchMailbox(emptyStore);
    await eventually('readiness answers', async () => (await stack.mailboxReadiness().catch(() => ({ status: 0 }))).status !== 0);
    const refusedShard = committed.find((p) => p.committed !== null && p.committed > 0n)!.partition;
    await eventually('the shard refused with the command', async () => (await d.status(refusedShard)).refused !== null);
    // One refused shard does not take the process out of a load balancer: ready, the refusal in the detail.
    // Readiness is answered from a cached check (issue 28 item 7), so the refusal reaches its detail
    // at the next refresh; every answer on the way must be 200.
    const answers: number[] = [];
    await eventually('the refusal in the readiness detail', async () => {
      const ready = await stack.mailboxReadiness();
      answers.push(ready.status);
      return ready.body.includes('reset-mailbox-offsets');
    });
    expect(answers.every((status) => status === 200)).toBe(true);
    const st = await d.status(refusedShard);
    expect(st.refused).toMatchObject({ kind: 'group-ahead', resolve: expect.stringContaining(`reset-mailbox-offsets --shard ${refusedShard}`) });
    expect(st.frontier).toBeNull();
    expect(stack.mailbox!.output).toMatch(/shard refused: shard \d epoch 1: the shard group committed offset/);
    const during = [await d.send()];
    await new Promise((r) => setTimeout(r, 2_000));
    expect((await probe.offsets(shardGroup, stack.env['QIM_TOPIC_DISPATCH']!)).find((p) => p.partition === refusedShard)!.committed).toBe(
      committed.find((p) => p.partition === refusedShard)!.committed,
    );
    await stack.mailbox!.stop('SIGTERM');

    const run = await runToExit('admin', admin, { ...stack.env, ...emptyStore }, ['reset-mailbox-offsets']);
    expect(run.code).toBe(0);
    expect(run.output).toMatch(new RegExp(`shard ${refusedShard}: frontier none, committed \\d+, partition 0…\\d+ → moved the group to 0`));

    await stack.startMailbox(emptyStore);
    await d.everyoneHas([...first, ...during]);
    expect((await d.status(refusedShard)).refused).toBeNull();
  });
});

describe('the dispatch topic deleted and recreated under a running deployment', () => {
  const stack = new ServiceStack({ QIM_MAILBOX_PAGE_RECORDS: '2' });
  const d = deployment(stack);
  const probe = new KafkaProbe(stack.env);
  const dispatchTopic = stack.env['QIM_TOPIC_DISPATCH']!;
  beforeAll(() => d.setUp());
  afterAll(() => stack.down());

  it('refuses the shards (no skip: the new records stay unapplied) and names a new epoch', async () => {
    const first = await Promise.all(Array.from({ length: 8 }, () => d.send()));
    await d.everyoneHas(first);
    const frontiers = await Promise.all([0, 1].map(async (s) => (await d.status(s)).frontier as string));
    expect(frontiers.every((f) => f !== null && BigInt(f) >= 4n)).toBe(true);

    await probe.deleteTopic(dispatchTopic);
    await stack.createTopics();
    const later = [await d.send(), await d.send()];

    // The running mailbox either refuses the shards itself or (kafkajs stopped for good) exits non-zero; then a new start refuses them.
    const exitedEarly = await Promise.race([stack.mailbox!.exited.then((e) => e), new Promise((r) => setTimeout(() => r(null), 20_000))]);
    if (exitedEarly !== null) {
      expect(exitedEarly).toMatchObject({ code: 1 });
      await stack.launchMailbox();
    }
    await eventually(
      'the shards refused with a new epoch as the resolution (the process still ready)',
      async () => {
        const r = await stack.mailboxReadiness().catch(() => ({ status: 0, body: '' }));
        return r.status === 200 && r.body.includes('QIM_MAILBOX_EPOCH=2');
      },
      90_000,
    );
    for (const s of [0, 1]) {
      const st = await d.status(s);
      expect(st.frontier).toBe(frontiers[s]);
      // kafkajs may commit its "earliest" sentinel (-2) after the reset: reported as no commit.
      expect(String(st.kafka?.committed)).not.toMatch(/^-/);
      if (st.assigned_here) expect(st.refused).toMatchObject({ kind: expect.stringMatching(/^(topic-recreated|group-lost)$/) });
    }
    for (const u of members) expect((await d.entriesOf(u)).filter((id) => later.includes(id))).toEqual([]);
  });
});
