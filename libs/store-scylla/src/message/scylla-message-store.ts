import { COMMIT_AUX_TTL_MS, InvalidInputError, JoinedMessageStore, systemClock } from '@qim/store-core';
import type { Clock, MessageStoreCapabilities } from '@qim/store-core';
import { CqlRunner } from '../session/cql-runner';
import { InFlightLimit, MAX_MAX_IN_FLIGHT } from '../session/in-flight-limit';
import type { ScyllaSession } from '../session/scylla-session';
import { StatementCounter } from '../session/statement-counter';
import { ClaimReleases, DEFAULT_CLAIM_LEASE_MS } from './claim';
import { NO_SCYLLA_MESSAGE_FAULTS } from './scylla-message-faults';
import type { ScyllaMessageFaults } from './scylla-message-faults';
import { createMessageContext } from './message-context';
import type { MessageContext } from './message-context';
import { scyllaMessageParts } from './scylla-message-parts';
import { SequenceAllocator } from './sequence-allocator';

export interface ScyllaMessageStoreOptions {
  /** "Now" for committed_at, remaining TTLs and the recovery window. Server TTLs still rule expiry. Default `systemClock`. */
  readonly clock?: Clock;
  /** Lifetime of auxiliary commit facts, ms (≥ 1000). Default `COMMIT_AUX_TTL_MS`; the contract gate uses a short one. */
  readonly commitAuxTtlMs?: bigint;
  /**
   * How long a claim on a commit key holds before another reserve of the same request may take it
   * over (its claimant is then taken to have crashed), ms (≥ 100). Default 15 000; gates use less.
   */
  readonly claimLeaseMs?: bigint;
  /**
   * Bound on the statements this store has in flight (1 … 1024, default 1024: below the driver's
   * 2,048 requests per connection, so a burst waits for a slot instead of failing in the driver).
   */
  readonly maxStatementsInFlight?: number;
  /** Counts every statement by name (LWTs apart) and the requests in flight; default a private one (`statements`). */
  readonly counter?: StatementCounter;
  /** Test seam: crash injection between the durable steps (`ScyllaMessageFaults`); production passes none. */
  readonly faults?: ScyllaMessageFaults;
}

/**
 * `MessageStore` over CQL (ScyllaDB or Apache Cassandra), seed "MessageStore schema 与操作".
 * Expects `migrate` to have run with `MESSAGE_TABLES`; it never touches schema. The store owns the
 * session: `close()` shuts it down. The port methods forward to `scyllaMessageParts` (`JoinedMessageStore`).
 */
export class ScyllaMessageStore extends JoinedMessageStore {
  readonly capabilities: MessageStoreCapabilities = Object.freeze({ injectableClock: false, needsHousekeeping: false });
  /** Every statement this store ran, by name (`sequence.step`, `commit.claim`, …; LWTs apart). */
  readonly statements: StatementCounter;
  private readonly ctx: MessageContext;
  private readonly seqs: SequenceAllocator;
  private readonly releases: ClaimReleases;

  constructor(
    private readonly session: ScyllaSession,
    options: ScyllaMessageStoreOptions = {},
  ) {
    const auxTtlMs = options.commitAuxTtlMs ?? COMMIT_AUX_TTL_MS;
    if (typeof auxTtlMs !== 'bigint' || auxTtlMs < 1000n) throw new InvalidInputError('commitAuxTtlMs must be at least 1000 ms');
    const claimLeaseMs = options.claimLeaseMs ?? DEFAULT_CLAIM_LEASE_MS;
    if (typeof claimLeaseMs !== 'bigint' || claimLeaseMs < 100n) throw new InvalidInputError('claimLeaseMs must be at least 100 ms');
    const clock = options.clock ?? systemClock;
    const statements = options.counter ?? new StatementCounter();
    const cql = new CqlRunner(session.client, session.config.keyspace, statements, new InFlightLimit(options.maxStatementsInFlight ?? MAX_MAX_IN_FLIGHT));
    const ctx = createMessageContext(cql, { clock, auxTtlMs, claimLeaseMs, faults: options.faults ?? NO_SCYLLA_MESSAGE_FAULTS });
    const seqs = new SequenceAllocator(ctx);
    const releases = new ClaimReleases(ctx);
    super(scyllaMessageParts(ctx, seqs, releases));
    this.statements = statements;
    this.ctx = ctx;
    this.seqs = seqs;
    this.releases = releases;
  }

  /** Lifetime of the auxiliary commit facts this store writes (ms). */
  get commitAuxTtlMs(): bigint {
    return this.ctx.auxTtlMs;
  }

  /** LWT rounds spent on seq allocation so far (`sequence.init` + `sequence.step`; benchmarks). */
  get seqLwtRounds(): number {
    return this.statements.lwtCount('sequence.');
  }

  /**
   * Seqs issued so far and the won CAS rounds that issued them (mean group size = seqs / rounds;
   * benchmarks), and the seqs CAS rounds of unknown outcome may have issued (`inDoubt`: the most
   * holes those can have left).
   */
  get seqGroups(): { readonly seqs: number; readonly rounds: number; readonly inDoubt: number } {
    return { seqs: this.seqs.seqsIssued, rounds: this.seqs.wonRounds, inDoubt: this.seqs.seqsInDoubt };
  }

  close(): Promise<void> {
    this.releases.stop();
    return this.session.close();
  }
}
