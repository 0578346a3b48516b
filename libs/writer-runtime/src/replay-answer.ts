import type { DurableMessageCommitter, MessageCommitSteps, SendOutcome, SendRequest } from '@qim/store-core';

/**
 * The original answer to `request` when its commit already exists (a replay): found by the
 * store's identity check (`loadCommitForRequest`; other content under the key → `ConflictError`),
 * finished first when still in progress. Null when there is no such commit. Reads only; a request
 * that is not a replay writes nothing here.
 */
export async function replayAnswer(
  store: Pick<MessageCommitSteps, 'loadCommitForRequest'>,
  committer: Pick<DurableMessageCommitter, 'resume'>,
  request: SendRequest,
): Promise<SendOutcome | null> {
  const existing = await store.loadCommitForRequest(request);
  if (existing === null) return null;
  const { intent } = existing.state === 'COMMITTED' ? existing : await committer.resume(existing);
  return { intent, seq: intent.seq, messageId: intent.messageId, createdAt: intent.createdAt, replay: true };
}
