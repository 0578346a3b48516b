import { CorruptEntryError, COMMIT_STATES, bytesEqual, commitKeyEquals, decodeCommitIntent } from '@qim/store-core';
import type { CommitSnapshot } from '@qim/store-core';
import { decodeStored } from '../storage/decode-stored';
import type { CommitRow } from './memory-message-backend';

/**
 * Decodes a stored commit row into its snapshot. The intent blob must decode, its identity must be
 * the row's identity column, its key the row's key, and the state a known one; anything else is
 * `CorruptEntryError`.
 */
export function snapshotOfRow(keyString: string, row: CommitRow, expectedKey: CommitSnapshot['intent']['key']): CommitSnapshot {
  const intent = decodeStored('commit intent', () => decodeCommitIntent(row.intent));
  if (!bytesEqual(intent.identity, row.identity)) throw new CorruptEntryError(`commit ${keyString}: identity column and intent disagree`);
  if (!commitKeyEquals(intent.key, expectedKey)) throw new CorruptEntryError(`commit ${keyString}: intent key disagrees with its row key`);
  if (!COMMIT_STATES.includes(row.state)) throw new CorruptEntryError(`commit ${keyString}: unknown state ${String(row.state)}`);
  return { intent, state: row.state };
}
