import type { Message, SendResult } from '@qim/client';
import { hex } from './support/e2e-env';
import type { ServiceProcess } from '@qim/service-stack';
import { ServiceStack } from './support/service-stack';

/**
 * Issue 13 item 1, across processes: two writer processes of one deployment (Redis backend) receive
 * concurrent identical sends (same tenant, sender, client_message_id and body), split over both.
 * Each client id becomes exactly one message, every copy is answered with the same seq, message id
 * and created_at, and the conversation's seqs are 1…N without a hole (no seq spent on a loser).
 */
const T = hex(0x2a11);
const CONV = hex(0x2c0e);
const ALICE = hex(0x2a01);
const BOB = hex(0x2b02);
const IDS_PER_ROUND = 20;
const COPIES = 4;
const ROUNDS = 2;

describe('two writers, concurrent identical sends (Redis backend)', () => {
  const stack = new ServiceStack({ QIM_SEND_DEADLINE_MS: '5000', QIM_RECOVERY_GRACE_MS: '6000' });
  let second: { process: ServiceProcess; url: string } | null = null;

  beforeAll(async () => {
    await stack.createTopics();
    await stack.startWriter();
    second = await stack.extraWriter();
    expect(await stack.client(T, ALICE).addMembers(CONV, [ALICE, BOB])).toBe(2);
    // The outbox producer's budget derived from QIM_SEND_DEADLINE_MS (5,000 ms here) less the default 5 ms produce pace: one retry of 2,377 ms requests.
    for (const w of [stack.writer!, second.process]) expect(w.output).toContain('"produceBudget":{"requestTimeoutMs":2377,"ackTimeoutMs":1901,"retries":1}');
  }, 180_000);
  afterAll(async () => {
    await second?.process.stop('SIGTERM');
    await stack.down();
  }, 90_000);

  it(`commits each of ${ROUNDS} × ${IDS_PER_ROUND} client ids once (${COPIES} copies each over both writers), seqs contiguous, answers identical`, async () => {
    const writers = [stack.client(T, ALICE), stack.client(T, ALICE, { writerUrl: second!.url })];
    const answers = new Map<string, SendResult[]>();
    for (let round = 0; round < ROUNDS; round++) {
      const ids = Array.from({ length: IDS_PER_ROUND }, (_, i) => hex(0x7000 + round * IDS_PER_ROUND + i));
      // Every copy of every id in flight at once; copies alternate between the two processes.
      const sends = ids.flatMap((id) =>
        Array.from({ length: COPIES }, (_, copy) =>
          writers[copy % 2]!.send({ conversationId: CONV, clientMessageId: id, body: `same body of ${id}` }).then((r) => [id, r] as const),
        ),
      );
      for (const [id, r] of await Promise.all(sends)) answers.set(id, [...(answers.get(id) ?? []), r]);
    }

    const total = ROUNDS * IDS_PER_ROUND;
    const differing = [...answers].filter(([, rs]) => new Set(rs.map((r) => `${r.seq}/${r.messageId}/${r.createdAt}`)).size !== 1).map(([id]) => id);
    expect({ ids: answers.size, copies: [...answers.values()].every((rs) => rs.length === COPIES), differing }).toEqual({
      ids: total,
      copies: true,
      differing: [],
    });

    const history: Message[] = [];
    for await (const page of stack.client(T, BOB).history(CONV, { direction: 'newer', maxItems: 1000 })) history.push(...page.items);
    expect(history.map((m) => m.seq)).toEqual(Array.from({ length: total }, (_, i) => BigInt(i + 1)));
    expect(new Set(history.map((m) => m.clientMessageId)).size).toBe(total);
    for (const m of history) {
      const [first] = answers.get(m.clientMessageId!) ?? [];
      expect({ id: m.clientMessageId, seq: m.seq, messageId: m.messageId, body: Buffer.from(m.body).toString() }).toEqual({
        id: m.clientMessageId,
        seq: first?.seq,
        messageId: first?.messageId,
        body: `same body of ${m.clientMessageId}`,
      });
    }
  });
});
