import { OffsetCommitQueue } from './offset-commit-queue';
import type { OffsetCommitQueueOptions } from './offset-commit-queue';

interface Request {
  readonly offsets: Map<number, bigint>;
  readonly metadata: Map<number, string>;
  /** `performance.now()` when the queue started the request. */
  readonly at: number;
  settle(err?: Error): void;
}

/** A queue whose requests stay open until the test settles them. */
function harness(join = { now: 1 }, extra: Partial<OffsetCommitQueueOptions> = {}) {
  const requests: Request[] = [];
  const committed: [number, bigint][] = [];
  const failed: Map<number, bigint>[] = [];
  const sent = { ok: 0 };
  const q = new OffsetCommitQueue({
    onSent: () => void (sent.ok += 1),
    send: (offsets, metadata) =>
      new Promise<void>((resolve, reject) =>
        requests.push({ offsets: new Map(offsets), metadata: new Map(metadata), at: performance.now(), settle: (err) => (err ? reject(err) : resolve()) }),
      ),
    currentJoin: () => join.now,
    onCommitted: (p, o) => void committed.push([p, o]),
    onFailed: (_err, offsets) => void failed.push(new Map(offsets)),
    retryDelayMs: () => 0,
    ...extra,
  });
  return { q, requests, committed, failed, join, sent };
}

const tick = () => new Promise<void>((r) => setImmediate(r));

describe('OffsetCommitQueue', () => {
  it("sends each offset with the metadata queued beside it: the latest offset's, none where it has none, again after a failure", async () => {
    const { q, requests } = harness();
    q.add({ partition: 0, offset: 3n, join: 1, metadata: 'a' });
    q.add({ partition: 0, offset: 5n, join: 1, metadata: 'b' });
    q.add({ partition: 1, offset: 2n, join: 1 });
    await tick();
    expect([...requests[0]!.offsets]).toEqual([
      [0, 5n],
      [1, 2n],
    ]);
    expect([...requests[0]!.metadata]).toEqual([[0, 'b']]);
    // An older offset never replaces a newer one, nor its metadata.
    q.add({ partition: 2, offset: 9n, join: 1, metadata: 'new' });
    q.add({ partition: 2, offset: 4n, join: 1, metadata: 'old' });
    requests[0]!.settle(new Error('broker away'));
    await tick();
    await tick();
    expect([...requests[1]!.offsets]).toEqual([
      [2, 9n],
      [0, 5n],
      [1, 2n],
    ]);
    expect([...requests[1]!.metadata]).toEqual([
      [2, 'new'],
      [0, 'b'],
    ]);
    requests[1]!.settle();
    await q.drain();
  });

  it('keeps one request in flight and sends everything queued meanwhile in the next, the latest offset per partition', async () => {
    const { q, requests, committed } = harness();
    q.add({ partition: 0, offset: 3n, join: 1 });
    q.add({ partition: 1, offset: 5n, join: 1 });
    await tick();
    expect(requests.map((r) => [...r.offsets])).toEqual([
      [
        [0, 3n],
        [1, 5n],
      ],
    ]);
    q.add({ partition: 0, offset: 7n, join: 1 });
    q.add({ partition: 0, offset: 9n, join: 1 });
    await tick();
    expect(requests).toHaveLength(1);
    requests[0]!.settle();
    await tick();
    expect(requests.map((r) => [...r.offsets])).toEqual([
      [
        [0, 3n],
        [1, 5n],
      ],
      [[0, 9n]],
    ]);
    requests[1]!.settle();
    await q.drain();
    expect(committed).toEqual([
      [0, 3n],
      [1, 5n],
      [0, 9n],
    ]);
    expect(q.requestsSent).toBe(2);
  });

  it('never reports a commit before the broker accepted it', async () => {
    const { q, requests, committed } = harness();
    q.add({ partition: 2, offset: 1n, join: 1 });
    await tick();
    expect(committed).toEqual([]);
    requests[0]!.settle();
    await q.drain();
    expect(committed).toEqual([[2, 1n]]);
  });

  it('drops an offset earned before a rejoin: the partition may be another member’s now', async () => {
    const { q, requests, committed, join } = harness();
    q.add({ partition: 0, offset: 4n, join: 1 });
    q.add({ partition: 1, offset: 8n, join: 1 });
    join.now = 2;
    q.add({ partition: 1, offset: 9n, join: 2 });
    await tick();
    expect(requests.map((r) => [...r.offsets])).toEqual([[[1, 9n]]]);
    requests[0]!.settle();
    await q.drain();
    expect(committed).toEqual([[1, 9n]]);
  });

  it('sends nothing when every queued offset is stale', async () => {
    const { q, requests, join } = harness();
    q.add({ partition: 0, offset: 4n, join: 1 });
    join.now = 3;
    await q.drain();
    expect(requests).toHaveLength(0);
    expect(q.requestsSent).toBe(0);
  });

  it('reports a failed request, goes on with the offsets queued after it, and does not move a partition back', async () => {
    const { q, requests, committed, failed, sent } = harness();
    q.add({ partition: 0, offset: 4n, join: 1 });
    await tick();
    q.add({ partition: 0, offset: 6n, join: 1 });
    q.add({ partition: 0, offset: 5n, join: 1 });
    requests[0]!.settle(new Error('NOT_COORDINATOR'));
    await tick();
    expect(failed).toEqual([new Map([[0, 4n]])]);
    expect(requests.map((r) => [...r.offsets])).toEqual([[[0, 4n]], [[0, 6n]]]);
    requests[1]!.settle();
    await q.drain();
    expect(committed).toEqual([[0, 6n]]);
    expect([q.requestsSent, sent.ok]).toEqual([2, 1]);
  });

  it('drain waits for the request in flight and for what was queued behind it', async () => {
    const { q, requests, committed } = harness();
    q.add({ partition: 0, offset: 1n, join: 1 });
    await tick();
    q.add({ partition: 0, offset: 2n, join: 1 });
    let drained = false;
    const d = q.drain().then(() => (drained = true));
    await tick();
    expect(drained).toBe(false);
    requests[0]!.settle();
    await tick();
    await tick();
    expect(drained).toBe(false);
    requests[1]!.settle();
    await d;
    expect(committed).toEqual([
      [0, 1n],
      [0, 2n],
    ]);
  });

  it('sends a failed request’s offsets again when nothing newer came for their partitions', async () => {
    const { q, requests, committed, failed, sent } = harness();
    q.add({ partition: 0, offset: 4n, join: 1 });
    q.add({ partition: 1, offset: 2n, join: 1 });
    await tick();
    q.add({ partition: 1, offset: 3n, join: 1 });
    requests[0]!.settle(new Error('REQUEST_TIMED_OUT'));
    await tick();
    await tick();
    expect(failed).toEqual([
      new Map([
        [0, 4n],
        [1, 2n],
      ]),
    ]);
    // the retry carries partition 0's failed offset and partition 1's newer one
    expect(requests.map((r) => [...r.offsets].sort((a, b) => a[0] - b[0]))).toEqual([
      [
        [0, 4n],
        [1, 2n],
      ],
      [
        [0, 4n],
        [1, 3n],
      ],
    ]);
    requests[1]!.settle();
    await q.drain();
    expect(committed.sort((a, b) => a[0] - b[0])).toEqual([
      [0, 4n],
      [1, 3n],
    ]);
    expect([q.requestsSent, sent.ok]).toEqual([2, 1]);
  });

  it('does not send a failed offset again after a rejoin', async () => {
    const { q, requests, failed, join } = harness();
    q.add({ partition: 0, offset: 4n, join: 1 });
    await tick();
    join.now = 2;
    requests[0]!.settle(new Error('REBALANCE_IN_PROGRESS'));
    await q.drain();
    expect(failed).toHaveLength(1);
    expect(requests).toHaveLength(1);
  });

  it('waits the retry delay of the consecutive failure count before sending again', async () => {
    const delays: number[] = [];
    const { q, requests } = harness(
      { now: 1 },
      {
        retryDelayMs: (failures) => {
          delays.push(failures);
          return 5;
        },
      },
    );
    // The next request comes after the 5 ms delay: waited for (up to 2 s), not slept for, so a loaded machine cannot fail it.
    const nextRequest = async (n: number): Promise<void> => {
      for (let i = 0; i < 400 && requests.length < n; i++) await new Promise((r) => setTimeout(r, 5));
    };
    q.add({ partition: 0, offset: 1n, join: 1 });
    await tick();
    requests[0]!.settle(new Error('x'));
    await nextRequest(2);
    requests[1]!.settle(new Error('x'));
    await nextRequest(3);
    requests[2]!.settle();
    await q.drain();
    expect(delays).toEqual([1, 2]);
    expect(requests).toHaveLength(3);
  });

  it('once draining, gives a failing partition a bounded number of attempts, so stop ends while the broker is away', async () => {
    const { q, requests, failed } = harness({ now: 1 }, { drainAttempts: 3 });
    q.add({ partition: 0, offset: 4n, join: 1 });
    const d = q.drain();
    for (let i = 0; i < 10 && requests.length < 4; i++) {
      await tick();
      const open = requests[requests.length - 1];
      open?.settle(new Error('BROKER_NOT_AVAILABLE'));
      await tick();
    }
    await d;
    expect(requests).toHaveLength(3);
    expect(failed).toHaveLength(3);
  });

  it('with a minimum interval, the first request goes at once and the next waits out the interval, carrying every offset queued meanwhile', async () => {
    // The interval is long against a loaded machine's timer jitter; the gap is measured between the
    // two requests' starts (what the interval is about), not from when this test got to run again.
    const { q, requests, committed } = harness({ now: 1 }, { minIntervalMs: 300 });
    q.add({ partition: 0, offset: 1n, join: 1 });
    await tick();
    expect(requests).toHaveLength(1);
    requests[0]!.settle();
    q.add({ partition: 0, offset: 2n, join: 1 });
    await new Promise((r) => setTimeout(r, 20));
    q.add({ partition: 0, offset: 3n, join: 1 });
    q.add({ partition: 1, offset: 8n, join: 1 });
    await new Promise((r) => setTimeout(r, 10));
    expect(requests).toHaveLength(1);
    while (requests.length < 2) await new Promise((r) => setTimeout(r, 5));
    // A timer may fire up to a millisecond before performance.now() says its delay has passed.
    expect(requests[1]!.at - requests[0]!.at).toBeGreaterThanOrEqual(298);
    expect([...requests[1]!.offsets]).toEqual([
      [0, 3n],
      [1, 8n],
    ]);
    requests[1]!.settle();
    await q.drain();
    expect(committed).toEqual([
      [0, 1n],
      [0, 3n],
      [1, 8n],
    ]);
  });

  it('a request after a quiet spell longer than the interval goes at once', async () => {
    const { q, requests } = harness({ now: 1 }, { minIntervalMs: 30 });
    q.add({ partition: 0, offset: 1n, join: 1 });
    await tick();
    requests[0]!.settle();
    await new Promise((r) => setTimeout(r, 45));
    q.add({ partition: 0, offset: 2n, join: 1 });
    await tick();
    await tick();
    expect(requests).toHaveLength(2);
    requests[1]!.settle();
    await q.drain();
  });

  it('drain cuts the interval short: a stopping consumer commits at once', async () => {
    const { q, requests, committed } = harness({ now: 1 }, { minIntervalMs: 10_000 });
    q.add({ partition: 0, offset: 1n, join: 1 });
    await tick();
    requests[0]!.settle();
    q.add({ partition: 0, offset: 2n, join: 1 });
    await new Promise((r) => setTimeout(r, 10));
    expect(requests).toHaveLength(1);
    const d = q.drain();
    while (requests.length < 2) await new Promise((r) => setTimeout(r, 5));
    requests[1]!.settle();
    await d;
    expect(committed).toEqual([
      [0, 1n],
      [0, 2n],
    ]);
  });

  it('refuses a negative or non-finite interval', () => {
    for (const minIntervalMs of [-1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => new OffsetCommitQueue({ send: async () => undefined, currentJoin: () => 1, minIntervalMs })).toThrow('minIntervalMs');
    }
  });
});
