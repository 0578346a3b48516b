import { InvalidInputError, InvariantViolationError } from '../errors/domain-errors';
import type { Id128 } from '../model/ids';
import type { CommitIntent, CommitSnapshot, CommitState, Publication, SendRequest } from '../model/message';
import type { MessageCommitSteps, ReserveInput } from '../ports/message-commit-steps';
import type { OutboxPublisher } from '../ports/outbox-publisher';
import { recordFromIntent } from '../rules/record-from-intent';
import { DurableMessageCommitter } from './durable-message-committer';
import type { CommitStepObserver } from './durable-message-committer';
import { SAMPLE_SEND_REQUEST } from '../testing/sample-request';

const id = (n: number): Id128 => n.toString(16).padStart(32, '0') as Id128;
const request: SendRequest = SAMPLE_SEND_REQUEST;
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
function scriptedStore(start: CommitState | null, overrides: Partial<MessageCommitSteps> = {}): { store: MessageCommitSteps; calls: string[] } {
  const calls: string[] = [];
  const base = {
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
    markPublishedAndCommitted: async (i: CommitIntent, p: Publication) => {
      calls.push('markPublishedAndCommitted');
      expect(i).toEqual(intent);
      return snap('COMMITTED', p);
    },
    ...overrides,
  };
  return { store: base as unknown as MessageCommitSteps, calls };
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
  it('drives reserve → putRecord → publish → markPublishedAndCommitted and answers with the intent', async () => {
    const { store, calls } = scriptedStore(null);
    const p = publisher();
    const out = await new DurableMessageCommitter(store, p).send(input);
    expect(calls).toEqual(['reserve', 'putRecord', 'markPublishedAndCommitted']);
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
    ['RESERVED', ['reserve', 'putRecord', 'markPublishedAndCommitted'], 1],
    ['RECORDED', ['reserve', 'markPublishedAndCommitted'], 1],
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

describe('DurableMessageCommitter step observer', () => {
  /** An observer that logs each step it is told about, with a duration that must be a finite, non-negative number of seconds. */
  function observed(): { steps: string[]; observer: CommitStepObserver } {
    const steps: string[] = [];
    return {
      steps,
      observer: {
        step: (step, seconds) => {
          expect(Number.isFinite(seconds) && seconds >= 0).toBe(true);
          steps.push(step);
        },
      },
    };
  }

  it('times each step of a new commit: reserve, record, publish, commit', async () => {
    const { store } = scriptedStore(null);
    const o = observed();
    await new DurableMessageCommitter(store, publisher(), o.observer).send(input);
    expect(o.steps).toEqual(['reserve', 'record', 'publish', 'commit']);
  });

  it('a replay of a COMMITTED commit is only its reserve; an OUTBOXED one adds the commit mark', async () => {
    const done = observed();
    await new DurableMessageCommitter(scriptedStore('COMMITTED').store, publisher(), done.observer).send(input);
    expect(done.steps).toEqual(['reserve']);
    const outboxed = observed();
    await new DurableMessageCommitter(scriptedStore('OUTBOXED').store, publisher(), outboxed.observer).send(input);
    expect(outboxed.steps).toEqual(['reserve', 'commit']);
  });

  it('a step that fails is not observed, and an observer that throws does not fail the send', async () => {
    const failed = observed();
    await expect(new DurableMessageCommitter(scriptedStore(null).store, publisher(true), failed.observer).send(input)).rejects.toThrow('broker down');
    expect(failed.steps).toEqual(['reserve', 'record']);
    const throwing: CommitStepObserver = {
      step: () => {
        throw new Error('metrics down');
      },
    };
    expect((await new DurableMessageCommitter(scriptedStore(null).store, publisher(), throwing).send(input)).seq).toBe(7n);
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

/** A promise and the functions that settle it. */
function deferred<T>(): { promise: Promise<T>; resolve: (v: T) => void; reject: (e: unknown) => void } {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('DurableMessageCommitter single flight', () => {
  it('concurrent sends of an equal request share one flight: one reserve, one publish, one ACK; exactly one is not a replay', async () => {
    const gate = deferred<void>();
    const { store, calls } = scriptedStore(null);
    const reserve = store.reserve.bind(store);
    const gated: MessageCommitSteps = { ...store, reserve: async (i) => (await gate.promise, reserve(i)) };
    const p = publisher();
    const committer = new DurableMessageCommitter(gated, p);
    const copies = Array.from({ length: 5 }, (_, k) => ({ ...input, request: { ...request, body: new Uint8Array([104, 105]) }, messageId: id(200 + k) }));
    const pending = copies.map((c) => committer.send(c));
    gate.resolve();
    const outs = await Promise.all(pending);
    expect(calls).toEqual(['reserve', 'putRecord', 'markPublishedAndCommitted']);
    expect(p.published).toHaveLength(1);
    expect(new Set(outs.map((o) => `${o.seq}/${o.messageId}/${o.createdAt}`)).size).toBe(1);
    expect(outs.map((o) => o.replay)).toEqual([false, true, true, true, true]);
  });

  it("joiners get the leader's error; after the flight a new send runs again", async () => {
    const boom = new Error('store down');
    let fail = true;
    const { store, calls } = scriptedStore(null, {
      reserve: async () => {
        calls.push('reserve');
        if (fail) throw boom;
        return { snapshot: snap('COMMITTED', pub), created: false };
      },
    });
    const committer = new DurableMessageCommitter(store, publisher());
    const settled = await Promise.allSettled([committer.send(input), committer.send(input), committer.send(input)]);
    expect(settled.map((r) => (r.status === 'rejected' ? r.reason : r.value))).toEqual([boom, boom, boom]);
    expect(calls).toEqual(['reserve']);
    fail = false;
    expect((await committer.send(input)).replay).toBe(true);
    expect(calls).toEqual(['reserve', 'reserve']);
  });

  it('a different request under the same key waits for the flight to end, then runs on its own', async () => {
    const gate = deferred<void>();
    const order: string[] = [];
    const { store } = scriptedStore(null);
    const reserve = store.reserve.bind(store);
    const gated: MessageCommitSteps = {
      ...store,
      reserve: async (i) => {
        order.push(`reserve ${Buffer.from(i.request.body).toString()}`);
        if (order.length === 1) await gate.promise;
        order.push(`reserved ${Buffer.from(i.request.body).toString()}`);
        return reserve(i);
      },
    };
    const committer = new DurableMessageCommitter(gated, publisher());
    const first = committer.send(input);
    const other = committer.send({ ...input, request: { ...request, body: Buffer.from('other') } });
    await new Promise((r) => setImmediate(r));
    expect(order).toEqual(['reserve hi']);
    gate.resolve();
    await Promise.all([first, other]);
    expect(order).toEqual(['reserve hi', 'reserved hi', 'reserve other', 'reserved other']);
  });

  it('different commit keys do not wait for each other', async () => {
    const gate = deferred<void>();
    const { store, calls } = scriptedStore(null);
    const reserve = store.reserve.bind(store);
    const gated: MessageCommitSteps = { ...store, reserve: async (i) => (i.request.clientMessageId === id(3) ? await gate.promise : undefined, reserve(i)) };
    const committer = new DurableMessageCommitter(gated, publisher());
    const blocked = committer.send(input);
    await committer.send({ ...input, request: { ...request, clientMessageId: id(33) } });
    expect(calls).toEqual(['reserve', 'putRecord', 'markPublishedAndCommitted']);
    gate.resolve();
    await blocked;
  });

  it('an invalid request is refused before any flight or store call', async () => {
    const { store, calls } = scriptedStore(null);
    await expect(new DurableMessageCommitter(store, publisher()).send({ ...input, request: { ...request, kind: 'bogus' as never } })).rejects.toThrow(
      InvalidInputError,
    );
    expect(calls).toEqual([]);
  });

  it('a resume of a commit being finished joins that run (recovery racing a send publishes once)', async () => {
    const gate = deferred<void>();
    const { store, calls } = scriptedStore(null);
    const putRecord = store.putRecord.bind(store);
    const gated: MessageCommitSteps = { ...store, putRecord: async (i, r) => (await gate.promise, putRecord(i, r)) };
    const p = publisher();
    const committer = new DurableMessageCommitter(gated, p);
    const sending = committer.send(input);
    await new Promise((r) => setImmediate(r));
    const resuming = committer.resume(snap('RESERVED'));
    gate.resolve();
    const [sent, resumed] = await Promise.all([sending, resuming]);
    expect(resumed).toEqual(snap('COMMITTED', pub));
    expect(sent.intent).toEqual(resumed.intent);
    expect(calls).toEqual(['reserve', 'putRecord', 'markPublishedAndCommitted']);
    expect(p.published).toHaveLength(1);
  });
});
