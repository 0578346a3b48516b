import type { PaceClock, SentBatch } from '../group-commit-producer';

/**
 * A `beforeSend` hook that holds every produce request until the test releases it, so a test
 * decides when a request is in flight instead of sleeping and hoping: `batches` lists what each
 * request carried, `taken(n)` resolves once the n-th request (1-based) is held, `release(n)` lets
 * it go to the broker.
 */
export function heldSends() {
  const batches: SentBatch[] = [];
  const gates: { open: () => void; opened: Promise<void> }[] = [];
  const waiters: { n: number; wake: () => void }[] = [];
  const gate = (n: number) => {
    while (gates.length < n) {
      let open!: () => void;
      const opened = new Promise<void>((r) => (open = r));
      gates.push({ open, opened });
    }
    return gates[n - 1]!;
  };
  return {
    batches,
    beforeSend: (batch: SentBatch): Promise<void> => {
      batches.push(batch);
      for (const w of waiters.filter((x) => x.n <= batches.length)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.wake();
      }
      return gate(batches.length).opened;
    },
    taken: (n: number): Promise<void> => (batches.length >= n ? Promise.resolve() : new Promise<void>((wake) => waiters.push({ n, wake }))),
    release: (n: number): void => gate(n).open(),
  };
}

/** A pacing clock that moves only when told; `sleeps` lists the waits asked for, `wake()` ends the current one. */
export class ManualPaceClock implements PaceClock {
  private t = 0;
  readonly sleeps: number[] = [];
  private pending: (() => void) | null = null;
  private asleep: (() => void) | null = null;

  now(): number {
    return this.t;
  }

  advance(ms: number): void {
    this.t += ms;
  }

  sleep(ms: number): Promise<void> {
    this.sleeps.push(ms);
    this.asleep?.();
    return new Promise<void>((r) => (this.pending = r));
  }

  /** Resolves once the producer waits (now or later). */
  sleeping(): Promise<void> {
    return this.pending ? Promise.resolve() : new Promise<void>((r) => (this.asleep = r));
  }

  /** Moves time past the wait asked for and ends it. */
  wake(): void {
    const wake = this.pending;
    if (!wake) throw new Error('the producer is not waiting');
    this.t += this.sleeps[this.sleeps.length - 1]!;
    this.pending = null;
    this.asleep = null;
    wake();
  }
}
