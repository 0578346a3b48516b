import type { SendOutcome, SendRequest } from '@qim/store-core';
import { ConflictError, ForbiddenError } from '@qim/store-core';
import { sendBatch } from './send-batch';
import type { Sender } from './send-deadline';

const hex = (n: number) => n.toString(16).padStart(32, '0') as SendRequest['clientMessageId'];
const request = (client: number, text = 'x'): SendRequest => ({
  tenantId: hex(0xa1),
  senderId: hex(1),
  clientMessageId: hex(0x1000 + client),
  conversationId: hex(0xc1),
  kind: 'normal',
  control: false,
  contentType: 'text/plain',
  body: Buffer.from(text),
  retention: { kind: 'default' },
});

/** Answers each send after `delayMs(request)`; records when each started and whether it overlapped another. */
class ScriptedSender implements Sender {
  readonly started: string[] = [];
  inFlight = 0;
  maxInFlight = 0;
  private readonly committed = new Map<string, { text: string; seq: bigint }>();
  constructor(private readonly delayMs: (r: SendRequest) => number = () => 5) {}

  async send(r: SendRequest): Promise<SendOutcome> {
    this.started.push(r.clientMessageId);
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      await new Promise((resolve) => setTimeout(resolve, this.delayMs(r)));
      if (Buffer.from(r.body).toString() === 'forbidden') throw new ForbiddenError('not a member');
      const text = Buffer.from(r.body).toString();
      const earlier = this.committed.get(r.clientMessageId);
      if (earlier !== undefined && earlier.text !== text) throw new ConflictError('other content');
      const seq = earlier?.seq ?? BigInt(this.committed.size + 1);
      if (earlier === undefined) this.committed.set(r.clientMessageId, { text, seq });
      return { seq, replay: earlier !== undefined, messageId: hex(0x9000 + Number(seq)), createdAt: 1n, intent: { request: r } } as unknown as SendOutcome;
    } finally {
      this.inFlight--;
    }
  }
}

describe('sendBatch', () => {
  it('sends every request concurrently and answers each on its own, in request order', async () => {
    // The first is the slowest: answers must still come back in request order.
    const sender = new ScriptedSender((r) => (r.clientMessageId === hex(0x1000) ? 30 : 5));
    const results = await sendBatch(sender, [request(0), request(1), request(2)]);
    expect(sender.maxInFlight).toBe(3);
    expect(results.map((r) => r.ok && r.outcome.intent.request.clientMessageId)).toEqual([hex(0x1000), hex(0x1001), hex(0x1002)]);
  });

  it('a failing send fails only its own item (partial success)', async () => {
    const results = await sendBatch(new ScriptedSender(), [request(0), request(1, 'forbidden'), request(2)]);
    expect(results.map((r) => r.ok)).toEqual([true, false, true]);
    expect(results[1]).toEqual({ ok: false, error: expect.any(ForbiddenError) });
  });

  it('a send that throws synchronously fails only its own item', async () => {
    const sender: Sender = {
      send: (r) => {
        if (r.clientMessageId === hex(0x1001)) throw new Error('boom');
        return Promise.resolve({ seq: 1n, replay: false, intent: { request: r } } as unknown as SendOutcome);
      },
    };
    const results = await sendBatch(sender, [request(0), request(1)]);
    expect(results.map((r) => r.ok)).toEqual([true, false]);
  });

  it('a client id repeated inside the batch is sent after the earlier item settled: answered as a retry would be', async () => {
    const sender = new ScriptedSender();
    const results = await sendBatch(sender, [request(0, 'a'), request(1), request(0, 'a'), request(0, 'other')]);
    expect(results.map((r) => (r.ok ? `${r.outcome.seq}${r.outcome.replay ? ' replay' : ''}` : (r.error as Error).name))).toEqual([
      '1',
      '2',
      '1 replay',
      'ConflictError',
    ]);
    // The repeats of id 0 started only after the first one was answered: never two of one id at once.
    expect(sender.started.filter((id) => id === hex(0x1000))).toHaveLength(3);
  });

  it('answers an empty batch with no results', async () => {
    expect(await sendBatch(new ScriptedSender(), [])).toEqual([]);
  });
});
