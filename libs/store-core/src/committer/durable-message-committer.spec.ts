import { InvariantViolationError } from '../errors/domain-errors';
import type { Id128 } from '../model/ids';
import type { CommitIntent, CommitSnapshot, CommitState, Publication, SendRequest } from '../model/message';
import type { MessageStore, ReserveInput } from '../ports/message-store';
import type { OutboxPublisher } from '../ports/outbox-publisher';
import { recordFromIntent } from '../rules/record-from-intent';
import { DurableMessageCommitter } from './durable-message-committer';

const id = (n: number): Id128 => n.toString(16).padStart(32, '0') as Id128;
const request: SendRequest = {
  tenantId: id(1),
  senderId: id(2),
  clientMessageId: id(3),
  conversationId: id(4),
  kind: 'normal',
  control: false,
  contentType: 'text/plain',
  body: new Uint8Array([104, 105]),
  retention: { kind: 'default' },
};
const intent: CommitIntent = {
  key: { tenantId: id(1), senderId: id(2), clientMessageId: id(3) },
  identity: new Uint8Array(32),
  request,
  seq: 7n,
  messageId: id(70),
  createdAt: 1_000n,
  recipients: [id(2), id(5)],
  publication: null,
};
const input: ReserveInput = { request, messageId: id(99), createdAt: 2_000n, recipients: [id(5)] };
const pub: Publication = { topic: 'qim.messages', partition: 3, offset: 41n };
const snap = (state: CommitState, publication: Publication | null = null): CommitSnapshot => ({ intent: { ...intent, publication }, state });

/** A scripted store: answers each step with the next state and logs every call. Only the calls the committer makes exist. */
function scriptedStore(start: CommitState | null, overrides: Partial<MessageStore> = {}): { store: MessageStore; calls: string[] } {
  const calls: string[] = [];
  const base = {
    capabilities: { injectableClock: true },
    reserve: async () => {
      calls.push('reserve');
      return { snapshot: snap(start ?? 'RESERVED', start === 'OUTBOXED' || start === 'COMMITTED' ? pub : null), created: start === null };
    },
    putRecord: async (i: CommitIntent, r: unknown) => {
      calls.push('putRecord');
      expect(r).toEqual(recordFromIntent(i));
      return snap('RECORDED');
    },
    markOutboxPublished: async (key: unknown, messageId: Id128, p: Publication) => {
      calls.push('markOutboxPublished');
      expect(key).toEqual(intent.key);
      expect(messageId).toBe(intent.messageId);
      return snap('OUTBOXED', p);
    },
    markCommitted: async () => {
      calls.push('markCommitted');
      return snap('COMMITTED', pub);
    },
    ...overrides,
  };
  return { store: base as unknown as MessageStore, calls };
}

function publisher(fail = false): OutboxPublisher & { published: CommitIntent[] } {
  const published: CommitIntent[] = [];
  return {
    published,
    publish: async (i) => {
      if (fail) throw new Error('broker down');
      published.push(i);
      return pub;
    },
  };
}

describe('DurableMessageCommitter.send', () => {
  it('drives reserve → putRecord → publish → markOutboxPublished → markCommitted and answers with the intent', async () => {
    const { store, calls } = scriptedStore(null);
    const p = publisher();
    const out = await new DurableMessageCommitter(store, p).send(input);
    expect(calls).toEqual(['reserve', 'putRecord', 'markOutboxPublished', 'markCommitted']);
    expect(p.published).toHaveLength(1);
    expect(out).toMatchObject({ seq: 7n, messageId: intent.messageId, createdAt: 1_000n, replay: false });
    expect(out.intent.publication).toEqual(pub);
  });

  it('a replay of a COMMITTED commit returns the original answer without publishing or writing', async () => {
    const { store, calls } = scriptedStore('COMMITTED');
    const p = publisher();
    const out = await new DurableMessageCommitter(store, p).send(input);
    expect(calls).toEqual(['reserve']);
    expect(p.published).toHaveLength(0);
    expect(out).toMatchObject({ seq: 7n, messageId: intent.messageId, createdAt: 1_000n, replay: true });
  });

  it.each([
    ['RESERVED', ['reserve', 'putRecord', 'markOutboxPublished', 'markCommitted'], 1],
    ['RECORDED', ['reserve', 'markOutboxPublished', 'markCommitted'], 1],
    ['OUTBOXED', ['reserve', 'markCommitted'], 0],
  ] as const)('a replay found %s resumes only the remaining steps', async (state, expected, publishes) => {
    const { store, calls } = scriptedStore(state);
    const p = publisher();
    const out = await new DurableMessageCommitter(store, p).send(input);
    expect(calls).toEqual(expected);
    expect(p.published).toHaveLength(publishes);
    expect(out.replay).toBe(true);
  });

  it('a failed publish propagates and leaves the commit RECORDED (no outbox mark)', async () => {
    const { store, calls } = scriptedStore(null);
    await expect(new DurableMessageCommitter(store, publisher(true)).send(input)).rejects.toThrow('broker down');
    expect(calls).toEqual(['reserve', 'putRecord']);
  });

  it('store errors propagate unchanged', async () => {
    const boom = new Error('unavailable');
    const { store } = scriptedStore(null, { putRecord: async () => Promise.reject(boom) });
    await expect(new DurableMessageCommitter(store, publisher()).send(input)).rejects.toBe(boom);
  });
});

describe('DurableMessageCommitter.resume', () => {
  it('stops early when the store reports a later state (another committer finished first)', async () => {
    const { store, calls } = scriptedStore('RESERVED', { putRecord: async () => snap('COMMITTED', pub) });
    const p = publisher();
    const done = await new DurableMessageCommitter(store, p).resume(snap('RESERVED'));
    expect(done.state).toBe('COMMITTED');
    expect(calls).toEqual([]);
    expect(p.published).toHaveLength(0);
  });

  it('a step that does not move the state forward is an invariant violation, not a loop', async () => {
    const { store } = scriptedStore('RESERVED', { putRecord: async () => snap('RESERVED') });
    await expect(new DurableMessageCommitter(store, publisher()).resume(snap('RESERVED'))).rejects.toThrow(InvariantViolationError);
  });

  it('a COMMITTED snapshot is returned as is', async () => {
    const { store, calls } = scriptedStore('COMMITTED');
    const s = snap('COMMITTED', pub);
    expect(await new DurableMessageCommitter(store, publisher()).resume(s)).toBe(s);
    expect(calls).toEqual([]);
  });
});
