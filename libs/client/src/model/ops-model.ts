/** One service's `/readyz` answer. */
export interface Readiness {
  readonly ready: boolean;
  /** HTTP status of `/readyz` (200 ready, 503 not ready). */
  readonly status: number;
  /** Each named check with its details, as the service reports them (empty when the service did not accept the token). */
  readonly checks: Readonly<Record<string, { readonly ok: boolean; readonly detail?: unknown }>>;
}

/** A mailbox shard as its status route reports it. */
export interface ShardStatus {
  readonly shard: number;
  readonly epoch: number;
  /**
   * The shard frontier (highest applied dispatch offset; ADR-0022), null when nothing is applied yet,
   * undefined when the service does not report one.
   */
  readonly frontier: bigint | null | undefined;
  /** Dispatch records not yet committed by the shard's consumer (Kafka end − committed), null when unknown. */
  readonly lag: bigint | null;
  /** Dispatch records not yet applied (Kafka end − 1 − frontier), null when unknown. */
  readonly unapplied: bigint | null;
  /** The shard's stall as reported (since, reason, …); null when it is not stalled or nothing is reported. */
  readonly stall: Readonly<Record<string, unknown>> | null;
  /** Whether the answering mailbox process runs this shard; null when not reported. */
  readonly assignedHere: boolean | null;
  /** The whole answer, for fields the client does not model. */
  readonly raw: Readonly<Record<string, unknown>>;
}
