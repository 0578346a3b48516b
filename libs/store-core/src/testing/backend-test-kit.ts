import type { Clock } from '../ports/clock';
import type { BackendSelection } from '../ports/backend-module';
import type { MailboxStore } from '../ports/mailbox-store';
import type { MessageStore } from '../ports/message-store';
import type { MailboxGcConfig, ShardEpoch } from '../model/mailbox';

/**
 * Store options a service never sets but the soak and the benchmarks do: shorter lifetimes on a
 * manual clock, and how the mailbox stores apply pages. Absent: the store's own default.
 */
export interface TestStoreTuning {
  /** Lifetime of the auxiliary commit facts (ms; production 2 h). */
  readonly commitAuxTtlMs?: bigint;
  /** Redis: physical clean-up grace after a logical expiry (ms). */
  readonly physicalGraceMs?: bigint;
  /** Memory and Scylla: lifetime of a released bucket proof (ADR-0022 §6), from its release (ms). */
  readonly releasedProofTtlMs?: bigint;
  /** Store statements one shard's `applyPage` keeps in flight (Redis, Scylla). */
  readonly applyConcurrency?: number;
  /** Redis: whether warm users' entries may skip the append script (the store's plain path; default the store's). */
  readonly plainPath?: boolean;
}

/** How a backend kit opens its stores for the soak or a benchmark. */
export interface TestOpenOptions {
  /** The stores' clock (a `ManualClock` in the soak). */
  readonly clock: Clock;
  readonly tuning?: TestStoreTuning;
  /**
   * Scratch storage (Scylla: a keyspace named `qim_soak_…`, `qim_bench_…` or `qim_test_…`) dropped
   * before the stores open and again on `close()`, unless `keep`. Redis data lives under the
   * configured namespace; `close()` deletes its keys unless `keep`.
   */
  readonly scratch?: boolean;
  /** Leave the data in place on `close()`. */
  readonly keep?: boolean;
}

/**
 * Stores opened for the soak or a benchmark, with a look at what they hold. The mailbox stores are
 * made on demand: another gc on the same storage is another store, as a process started with
 * another setting would be.
 */
export interface TestStores<I = unknown> {
  readonly kind: string;
  readonly messages: MessageStore;
  /** A new mailbox store of `shardEpoch` over the same storage (the caller keeps and closes it). */
  mailboxStore(shardEpoch: ShardEpoch, gc: MailboxGcConfig): MailboxStore;
  /** The backend's inspection seam: read (or, for fault drills, damage) the stored facts below the store ports. */
  readonly inspect: I;
  /** Where the data lives, for output (no credentials). */
  readonly where: string;
  /** Closes the message store and the connections (mailbox stores are the caller's); deletes the data unless `keep`. */
  close(): Promise<void>;
}

/**
 * A backend's test kit: what `@qim/backends/testing` opens for the soak and the benchmarks, beside
 * the services' `BackendModule`. Each store library exports one from its `/testing` entry.
 */
export interface BackendTestKit<C extends BackendSelection = BackendSelection, I = unknown> {
  readonly kind: C['kind'];
  open(cfg: C, opts: TestOpenOptions): Promise<TestStores<I>>;
}
