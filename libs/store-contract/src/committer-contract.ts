import { ConflictError, DurableMessageCommitter, RecoveryRunner, encodeMessageEvent, messageEventOf, recordFromIntent, systemClock } from '@qim/store-core';
import type { CommitIntent, CommitKey, Id128, MessageCommitSteps, OutboxPublisher, Publication, ReserveInput, SendOutcome } from '@qim/store-core';
import type { MessageHarnessFactory } from './harness';
import { allowAll, makeRequest, makeReserve, useMessageContext } from './message/message-fixtures';
import type { MessageContext } from './message/message-fixtures';
import { expectStoreError } from './support/expect-error';
import { randomId } from './support/ids';
import { TIMED_CASE_TIMEOUT_MS } from './support/time-control';

/** The committer's steps, in order (`markOutboxPublished` and `markCommitted` only resume an OUTBOXED commit). */
type Step = 'reserve' | 'putRecord' | 'publish' | 'markPublishedAndCommitted' | 'markOutboxPublished' | 'markCommitted';
const STEPS: readonly Step[] = ['reserve', 'putRecord', 'publish', 'markPublishedAndCommitted'];
/** Where the simulated process dies: just before a step is sent, or just after it succeeded. */
interface CrashPoint {
  readonly step: Step;
  readonly when: 'before' | 'after';
}

/** The committer's process died. Thrown by the crash wrappers only. */
class CrashError extends Error {}

/**
 * A dying process: delegates to the real store/publisher until the crash point, then throws
 * `CrashError` there and on every later call (a dead process sends nothing more).
 */
class CrashSwitch {
  private dead = false;
  reserved: CommitIntent | null = null;
  constructor(private readonly point: CrashPoint) {}

  async run<T>(step: Step, call: () => Promise<T>): Promise<T> {
    if (this.dead || (this.point.step === step && this.point.when === 'before')) return this.die();
    const result = await call();
    if (this.point.step === step) return this.die();
    return result;
  }

  private die(): never {
    this.dead = true;
    throw new CrashError(`crashed ${this.point.when} ${this.point.step}`);
  }

  /** The commit steps the committer drives, each able to die; the two loads pass through. */
  store(real: MessageCommitSteps): MessageCommitSteps {
    return {
      reserve: (input) =>
        this.run('reserve', async () => {
          const r = await real.reserve(input);
          this.reserved = r.snapshot.intent;
          return r;
        }),
      putRecord: (intent, record) => this.run('putRecord', () => real.putRecord(intent, record)),
      markOutboxPublished: (key, messageId, publication) => this.run('markOutboxPublished', () => real.markOutboxPublished(key, messageId, publication)),
      markCommitted: (key) => this.run('markCommitted', () => real.markCommitted(key)),
      markPublishedAndCommitted: (intent, publication) => this.run('markPublishedAndCommitted', () => real.markPublishedAndCommitted(intent, publication)),
      loadCommit: (key) => real.loadCommit(key),
      loadCommitForRequest: (request) => real.loadCommitForRequest(request),
    };
  }

  publisher(real: OutboxPublisher): OutboxPublisher {
    return { publish: (intent) => this.run('publish', () => real.publish(intent)) };
  }
}

/** The broker: acknowledges with increasing offsets and keeps every event's bytes. `failures` first calls fail. */
class RecordingBroker implements OutboxPublisher {
  readonly events: { messageId: Id128; bytes: Buffer; publication: Publication }[] = [];
  constructor(private failures = 0) {}
  async publish(intent: CommitIntent): Promise<Publication> {
    if (this.failures > 0) {
      this.failures -= 1;
      throw new Error('broker unavailable');
    }
    const publication = { topic: 'qim.messages', partition: 0, offset: BigInt(this.events.length) };
    this.events.push({ messageId: intent.messageId, bytes: encodeMessageEvent(messageEventOf(intent)), publication });
    return publication;
  }
  of(messageId: Id128): { bytes: Buffer; publication: Publication }[] {
    return this.events.filter((e) => e.messageId === messageId);
  }
}

/** A request created a minute ago (so a 30 s grace makes it recoverable on manual and real clocks alike). */
function oldInput(c: MessageContext, conversationId: Id128): ReserveInput {
  const request = makeRequest(c.tenantId, conversationId);
  return makeReserve(request, c.time.now() - 60_000n, [request.senderId, randomId()]);
}

function runner(c: MessageContext, broker: OutboxPublisher): RecoveryRunner {
  return new RecoveryRunner(c.store, new DurableMessageCommitter(c.store, broker), { graceMs: 30_000n, maxItems: 1000, clock: c.harness.clock ?? systemClock });
}

const sameKey = (a: CommitKey, b: CommitKey): boolean => a.tenantId === b.tenantId && a.senderId === b.senderId && a.clientMessageId === b.clientMessageId;

/**
 * The commit is finished exactly once: COMMITTED with `expected`'s seq and message id, one history
 * item for the message, published at least once with byte-identical events (the stored publication
 * is one of them), gone from the recovery scan, and a resend is a replay with the same answer that
 * publishes nothing.
 */
async function expectFinishedOnce(c: MessageContext, broker: RecordingBroker, input: ReserveInput, expected: CommitIntent): Promise<void> {
  const { store } = c;
  const snap = await store.loadCommit(expected.key);
  expect(snap?.state).toBe('COMMITTED');
  expect(snap!.intent.seq).toBe(expected.seq);
  expect(snap!.intent.messageId).toBe(expected.messageId);
  const events = broker.of(expected.messageId);
  expect(events.length).toBeGreaterThanOrEqual(1);
  for (const e of events) expect(e.bytes.equals(events[0]!.bytes)).toBe(true);
  expect(events.map((e) => e.publication)).toContainEqual(snap!.intent.publication);

  const viewer = { tenantId: c.tenantId, userId: input.request.senderId };
  const page = await store.historyPage(allowAll, viewer, input.request.conversationId, { direction: 'newer', anchor: null, maxItems: 100, maxBytes: 1 << 20 });
  expect(page.items.map((i) => [i.record.seq, i.record.messageId])).toEqual([[expected.seq, expected.messageId]]);
  const pending = await store.scanRecoverableCommits(c.time.now() + 1n, 1000);
  expect(pending.filter((s) => sameKey(s.intent.key, expected.key))).toEqual([]);

  const published = broker.events.length;
  const again: SendOutcome = await new DurableMessageCommitter(store, broker).send(makeReserve(input.request, c.time.now()));
  expect({ seq: again.seq, messageId: again.messageId, createdAt: again.createdAt, replay: again.replay }).toEqual({
    seq: expected.seq,
    messageId: expected.messageId,
    createdAt: expected.createdAt,
    replay: true,
  });
  expect(broker.events.length).toBe(published);
}

/**
 * `DurableMessageCommitter` + `RecoveryRunner` over a backend: a crash (the committer's process dying)
 * before or after every step, a failing broker, racing committers. Recovery must finish every
 * commit exactly once with the seq and message id of its first reservation. Uses a fresh harness
 * per case; commits are created 60 s in the past and recovered with a 30 s grace, so no case waits.
 */
export function describeCommitterContract(name: string, factory: MessageHarnessFactory): void {
  describe(`Committer contract: ${name}`, () => {
    const ctx = useMessageContext(factory);
    const points = STEPS.flatMap((step) => (['before', 'after'] as const).map((when) => ({ step, when })));

    it.each(points)(
      'crash $when $step: recovery (or the client retry) finishes the commit exactly once',
      async (point) => {
        const c = ctx();
        const input = oldInput(c, randomId());
        const broker = new RecordingBroker();
        const crash = new CrashSwitch(point);
        await expect(new DurableMessageCommitter(crash.store(c.store), crash.publisher(broker)).send(input)).rejects.toBeInstanceOf(CrashError);

        const report = await runner(c, broker).runOnce();
        expect(report.failures).toEqual([]);
        if (crash.reserved === null) {
          expect(point).toEqual({ step: 'reserve', when: 'before' });
          expect(report.examined).toBe(0);
          expect(broker.events).toEqual([]);
          const first = await new DurableMessageCommitter(c.store, broker).send(input);
          expect(first.replay).toBe(false);
          await expectFinishedOnce(c, broker, input, first.intent);
          return;
        }
        expect(report.completed).toBe(point.step === 'markPublishedAndCommitted' && point.when === 'after' ? 0 : 1);
        await expectFinishedOnce(c, broker, input, crash.reserved);
        expect((await runner(c, broker).runOnce()).examined).toBe(0);
      },
      TIMED_CASE_TIMEOUT_MS,
    );

    it(
      'a failing broker leaves the commit RECORDED; recovery retries until it publishes',
      async () => {
        const c = ctx();
        const input = oldInput(c, randomId());
        const broker = new RecordingBroker(2);
        await expect(new DurableMessageCommitter(c.store, broker).send(input)).rejects.toThrow('broker unavailable');
        const stuck = await c.store.loadCommitForRequest(input.request);
        expect(stuck?.state).toBe('RECORDED');

        const failedPass = await runner(c, broker).runOnce();
        expect(failedPass).toMatchObject({ examined: 1, completed: 0, failed: 1 });
        expect(failedPass.failures[0]!.key).toEqual(stuck!.intent.key);
        expect((await c.store.loadCommit(stuck!.intent.key))?.state).toBe('RECORDED');

        expect(await runner(c, broker).runOnce()).toMatchObject({ examined: 1, completed: 1, failed: 0 });
        await expectFinishedOnce(c, broker, input, stuck!.intent);
        expect(broker.of(stuck!.intent.messageId)).toHaveLength(1);
      },
      TIMED_CASE_TIMEOUT_MS,
    );

    it(
      'two committers racing one request get one seq and one message id; exactly one is not a replay',
      async () => {
        const c = ctx();
        const request = makeRequest(c.tenantId, randomId());
        const broker = new RecordingBroker();
        const [a, b] = await Promise.all([
          new DurableMessageCommitter(c.store, broker).send(makeReserve(request, c.time.now() - 60_000n)),
          new DurableMessageCommitter(c.store, broker).send(makeReserve(request, c.time.now() - 59_000n)),
        ]);
        expect([a.seq, a.messageId, a.createdAt]).toEqual([b.seq, b.messageId, b.createdAt]);
        expect([a.replay, b.replay].filter((r) => !r)).toHaveLength(1);
        await expectFinishedOnce(c, broker, makeReserve(request, 0n), a.intent);
      },
      TIMED_CASE_TIMEOUT_MS,
    );

    it(
      'a commit left OUTBOXED (published, not yet committed) is committed by recovery without publishing again',
      async () => {
        const c = ctx();
        const input = oldInput(c, randomId());
        const broker = new RecordingBroker();
        const { snapshot } = await c.store.reserve(input);
        await c.store.putRecord(snapshot.intent, recordFromIntent(snapshot.intent));
        await c.store.markOutboxPublished(snapshot.intent.key, snapshot.intent.messageId, await broker.publish(snapshot.intent));
        expect(await runner(c, broker).runOnce()).toMatchObject({ examined: 1, completed: 1, failed: 0 });
        await expectFinishedOnce(c, broker, input, snapshot.intent);
        expect(broker.events).toHaveLength(1);
      },
      TIMED_CASE_TIMEOUT_MS,
    );

    it(
      'concurrent identical sends through two writers (one committer per store, two stores): one commit, one seq, one ACK',
      async () => {
        const c = ctx();
        const peer = await c.harness.openStore();
        const conv = randomId();
        const request = makeRequest(c.tenantId, conv);
        const broker = new RecordingBroker();
        const writers = [new DurableMessageCommitter(c.store, broker), new DurableMessageCommitter(peer, broker)];
        const outs = await Promise.all(Array.from({ length: 16 }, (_, k) => writers[k % 2]!.send(makeReserve(request, c.time.now() - 60_000n + BigInt(k)))));
        expect(new Set(outs.map((o) => `${o.seq}/${o.messageId}/${o.createdAt}`)).size).toBe(1);
        expect(outs[0]!.seq).toBe(1n);
        expect(outs.filter((o) => !o.replay)).toHaveLength(1);
        await expectFinishedOnce(c, broker, makeReserve(request, 0n), outs[0]!.intent);
        const next = await writers[1]!.send(makeReserve(makeRequest(c.tenantId, conv), c.time.now()));
        expect(next.seq).toBe(2n);
      },
      TIMED_CASE_TIMEOUT_MS,
    );

    it(
      'a client retry racing the recovery runner after a crash: both finish the same commit',
      async () => {
        const c = ctx();
        const input = oldInput(c, randomId());
        const broker = new RecordingBroker();
        const crash = new CrashSwitch({ step: 'putRecord', when: 'after' });
        await expect(new DurableMessageCommitter(crash.store(c.store), crash.publisher(broker)).send(input)).rejects.toBeInstanceOf(CrashError);
        const [retry, report] = await Promise.all([
          new DurableMessageCommitter(c.store, broker).send(makeReserve(input.request, c.time.now())),
          runner(c, broker).runOnce(),
        ]);
        expect(report.failures).toEqual([]);
        expect([retry.seq, retry.messageId, retry.replay]).toEqual([crash.reserved!.seq, crash.reserved!.messageId, true]);
        await expectFinishedOnce(c, broker, input, crash.reserved!);
      },
      TIMED_CASE_TIMEOUT_MS,
    );

    it(
      'a replay of a COMMITTED commit publishes nothing; a different request under the key is a Conflict',
      async () => {
        const c = ctx();
        const input = oldInput(c, randomId());
        const broker = new RecordingBroker();
        const first = await new DurableMessageCommitter(c.store, broker).send(input);
        expect(first.replay).toBe(false);
        expect(broker.events).toHaveLength(1);
        await expectFinishedOnce(c, broker, input, first.intent);
        const changed = { ...input.request, body: Buffer.from('another body') };
        await expectStoreError(new DurableMessageCommitter(c.store, broker).send(makeReserve(changed, c.time.now())), ConflictError);
        expect(broker.events).toHaveLength(1);
      },
      TIMED_CASE_TIMEOUT_MS,
    );
  });
}
