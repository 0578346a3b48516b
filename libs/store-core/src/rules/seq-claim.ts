import type { Id128 } from '../model/ids';
import type { CommitIntent, CommitKey, SendRequest } from '../model/message';
import { commitKeyOf } from '../codecs/send-request';
import { assertSameRequest } from './commit-steps';

/**
 * The claim a reserve makes on its commit key at the conversation, in the same atomic step that
 * allocates the seq: which request (identity) the seq was issued to, and the candidates (message id,
 * created_at) fixed with it. It lives as long as the commit's auxiliary facts.
 *
 * This is what keeps concurrent or repeated identical reserves from spending more than one seq —
 * within one process or across processes: every reserve of the same request adopts the claim
 * instead of allocating. A claim is not owned by a process, so there is nothing to take over: when
 * its claimant dies, the next reserve of the same request (the client's retry, or another writer)
 * continues with the claimed seq and candidates. A seq is lost only when a claimant dies and no
 * identical reserve follows within the claim's lifetime (a crash), or when a request with another
 * content under the same key names another conversation (a client error answered with CONFLICT).
 */
export interface SeqClaim {
  /** SHA-256 identity of the request the seq was issued to. */
  readonly identity: Uint8Array;
  readonly seq: bigint;
  readonly messageId: Id128;
  readonly createdAt: bigint;
}

/**
 * Claim rule of `reserve` at the conversation: no live claim → `allocate` the next seq and store the
 * claim with this request's candidates; a live claim of the same request → `adopt` it (no new seq);
 * a live claim of another request → `ConflictError` (the same text as any reserve conflict).
 */
export function decideSeqClaim(existing: SeqClaim | null, identity: Uint8Array): 'allocate' | 'adopt' {
  if (existing === null) return 'allocate';
  assertSameRequest('reserve', existing.identity, identity);
  return 'adopt';
}

/**
 * The RESERVED intent a claim stands for: the request and its recipients snapshot, with the claim's
 * seq and candidates. Every reserve that adopts the same claim (and the same first recipients)
 * builds an equal intent. `recipients` must already be normalised (sorted, unique).
 */
export function reservedIntentOf(
  request: SendRequest,
  identity: Uint8Array,
  recipients: readonly Id128[],
  claim: SeqClaim,
  key: CommitKey = commitKeyOf(request),
): CommitIntent {
  return {
    key,
    identity,
    request,
    seq: claim.seq,
    messageId: claim.messageId,
    createdAt: claim.createdAt,
    recipients,
    publication: null,
  };
}
