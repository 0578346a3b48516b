import type { z } from 'zod';
import type { Clock } from './clock';
import type { MailboxGcConfig } from '../model/mailbox';
import type { MailboxStore } from './mailbox-store';
import type { MembershipDirectory } from './membership-directory';
import type { MessageStore } from './message-store';
import type { RecoveryClaims } from './recovery-claims';
import type { WriterLeaseStore } from './writer-leases';

/** One readiness fact of an opened backend: `ok` plus details an operator reads in the `/readyz` body. */
export interface BackendReadiness {
  readonly name: string;
  check(): Promise<{ readonly ok: boolean; readonly detail?: unknown }>;
}

/** Progress lines of the start-up steps (migrate → connect → readiness). */
export type StartupLog = (step: string, detail?: object) => void;

/** A backend choice resolved from the environment: its `kind` names the module, the rest is the module's own. */
export interface BackendSelection {
  readonly kind: string;
}

/** The zod fields of the variables a backend reads, each with its `.describe()` text. */
export type EnvShape = Readonly<Record<string, z.ZodType>>;

/** What a backend module's `resolve` gets besides its parsed variables. */
export interface BackendEnvContext {
  /** `QIM_ENV` (absent means production). */
  readonly env: string;
  /** True with `QIM_ENV=development|test` (Memory, RF < 3 and weaker Redis settings allowed). */
  readonly development: boolean;
  /** Refuses `variable` with `message` (the process does not start; every issue is reported at once). */
  issue(variable: string, message: string): void;
}

/** An opened message backend: migrated (scylla), connected and proven ready. */
export interface MessageBackend {
  readonly kind: string;
  readonly store: MessageStore;
  /** The backend's real readiness check (re-run by `/readyz`). */
  readonly readiness: BackendReadiness;
  close(): Promise<void>;
}

/** An opened mailbox backend: one `MailboxStore` per shard of the configured epoch. */
export interface MailboxBackend {
  readonly kind: string;
  /** The store bound to `ShardEpoch{shard, epoch}` (cached: one per shard per process). */
  storeFor(shard: number): Promise<MailboxStore>;
  readonly readiness: BackendReadiness;
  close(): Promise<void>;
}

/** What the mailbox stores are bound to. */
export interface MailboxBinding {
  readonly epoch: number;
  /** Entry retention and the dispatch dedupe window. */
  readonly gc: MailboxGcConfig;
  /** Store statements one shard's `applyPage` keeps in flight (`QIM_MAILBOX_APPLY_CONCURRENCY`). */
  readonly applyConcurrency: number;
  /**
   * `QIM_CLOCK_SKEW_MS`: how far service and database clocks may disagree (Scylla readers keep 1 s + this
   * from an expiry; every fast path, Redis too, this + 1 h). Default 0.
   */
  readonly clockSkewAllowanceMs?: bigint;
}

/** The writer's membership directory, writer-id leases and recovery claims, behind their store-core ports. */
export interface Coordination {
  readonly membership: MembershipDirectory;
  readonly leases: WriterLeaseStore;
  readonly claims: RecoveryClaims;
  readonly readiness: BackendReadiness;
  close(): Promise<void>;
}

/** Options every opener takes. */
export interface OpenOptions {
  /** `QIM_ENV`: a backend may check its server's settings more strictly in production. */
  readonly env: string;
  readonly step: StartupLog;
  /** The stores' clock (default: the system clock). */
  readonly clock?: Clock;
}

/** What a caller may rely on of a backend without naming it. */
export interface BackendCapabilities {
  /** Data survives a process restart (false: Memory, development/test only). */
  readonly durable: boolean;
  /**
   * The backend keeps the writer's coordination (membership, writer-id leases, recovery claims)
   * itself; when false the writer takes it from the backend named by `coordinationFrom`.
   */
  readonly coordination: boolean;
}

/**
 * One storage backend, as the registry of `@qim/backends` lists it: the variables it reads, how
 * they resolve, and how its stores open. Each store library exports exactly one; adding a backend
 * is one library, one registry line and one contract spec (docs/adding-a-backend.md).
 */
export interface BackendModule<C extends BackendSelection = BackendSelection> {
  /** The value of `QIM_STORE_BACKEND` that chooses this backend. */
  readonly kind: C['kind'];
  readonly capabilities: BackendCapabilities;
  /** The variables this backend reads (zod, each `.describe()`d); every service parses them. */
  readonly envShape: EnvShape;
  /**
   * This backend's settings from the parsed variables (`raw` holds every service variable), or null
   * after reporting each problem with `ctx.issue`. `requiredBy` says who needs them (messages).
   */
  resolve(raw: Readonly<Record<string, unknown>>, ctx: BackendEnvContext, requiredBy: string): C | null;
  /** Opens the message store: connect (migrate) → readiness, each failure thrown; never a fallback. */
  openMessageBackend(cfg: C, opts: OpenOptions): Promise<MessageBackend>;
  /** Opens the mailbox stores of `binding`'s epoch (same rules). */
  openMailboxBackend(cfg: C, binding: MailboxBinding, opts: OpenOptions): Promise<MailboxBackend>;
  /** The writer's coordination, when `capabilities.coordination`; `owner` names this process in recovery claims. */
  openCoordination?(cfg: C, owner: string, step: StartupLog): Promise<Coordination>;
}

/**
 * Every backend's variables and how `QIM_STORE_BACKEND` resolves (built by `@qim/backends` from its
 * registry; the services' schemas compose it).
 */
export interface BackendEnv {
  /** `QIM_STORE_BACKEND` and every backend's variables. */
  readonly shape: EnvShape;
  /** The chosen backend's settings, or null after reporting each problem. */
  resolve(raw: Readonly<Record<string, unknown>>, ctx: BackendEnvContext): BackendSelection | null;
  /**
   * Where the writer keeps its coordination: the chosen backend when it can, else Redis (its variables
   * then required by the writer); null after reporting each problem.
   */
  coordination(raw: Readonly<Record<string, unknown>>, backend: BackendSelection, ctx: BackendEnvContext): BackendSelection | null;
}
