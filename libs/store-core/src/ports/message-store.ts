import type { MessageCommitSteps } from './message-commit-steps';
import type { MessageHousekeeping } from './message-housekeeping';
import type { MessageReads } from './message-reads';
import type { MessageRecoveryScan } from './message-recovery-scan';
import type { MessageStoreCapabilities } from './message-store-capabilities';

/**
 * Production lifetime of the auxiliary commit facts (commit row, recovery index entry), counted from
 * the reserve: 2 hours (seed). Replays are recognised within it; afterwards the key is free again.
 */
export const COMMIT_AUX_TTL_MS = 7_200_000n;

/**
 * Durable message facts: every capability port a message backend implements, in one object. A caller
 * depends on the narrowest port it uses (`MessageCommitSteps` for the committer, `MessageRecoveryScan`
 * for recovery, `MessageHousekeeping` for the housekeeping loop, `MessageReads` for history and
 * summaries); only what opens, tests or hands the whole store around names `MessageStore`.
 */
export interface MessageStore extends MessageCommitSteps, MessageRecoveryScan, MessageHousekeeping, MessageReads {
  readonly capabilities: MessageStoreCapabilities;

  /** Releases connections. */
  close(): Promise<void>;
}
