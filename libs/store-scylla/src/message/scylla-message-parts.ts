import { InvalidInputError, assertSameRequest, requestIdentity } from '@qim/store-core';
import type { MessageParts } from '@qim/store-core';
import type { ClaimReleases } from './claim';
import { loadStoredCommit } from './commit-rows';
import { historyPage } from './history-page';
import type { MessageContext } from './message-context';
import { gcCommittedAuxiliary, scanRecoverableCommits } from './recovery-scan';
import { reserve } from './reserve';
import { ReserveSingleFlight } from './reserve-single-flight';
import type { SequenceAllocator } from './sequence-allocator';
import { conversationSummaries } from './summaries';
import { markCommitted, markOutboxPublished, markPublishedAndCommitted, putRecord } from './transitions';

/**
 * The capability ports of `ScyllaMessageStore` over one message context: each method calls the
 * operation of its file with `ctx`. Concurrent reserves of one commit key share one flight
 * (`ReserveSingleFlight`).
 */
export function scyllaMessageParts(ctx: MessageContext, seqs: SequenceAllocator, releases: ClaimReleases): MessageParts {
  const reserves = new ReserveSingleFlight((input) => reserve(ctx, seqs, releases, input));
  return {
    commits: {
      reserve: (input) => reserves.run(input),
      putRecord: (intent, record) => putRecord(ctx, intent, record),
      markOutboxPublished: (key, messageId, publication) => markOutboxPublished(ctx, key, messageId, publication),
      markCommitted: (key) => markCommitted(ctx, key),
      markPublishedAndCommitted: (intent, publication) => markPublishedAndCommitted(ctx, intent, publication),
      loadCommit: async (key) => (await loadStoredCommit(ctx, key))?.snapshot ?? null,
      loadCommitForRequest: async (request) => {
        const key = { tenantId: request.tenantId, senderId: request.senderId, clientMessageId: request.clientMessageId };
        const stored = await loadStoredCommit(ctx, key);
        if (stored === null) return null;
        assertSameRequest('loadCommitForRequest', stored.snapshot.intent.identity, requestIdentity(request));
        return stored.snapshot;
      },
    },
    recovery: { scanRecoverableCommits: (cutoffMs, maxItems) => scanRecoverableCommits(ctx, cutoffMs, maxItems) },
    housekeeping: {
      gcCommittedAuxiliary: (nowMs, limit) => gcCommittedAuxiliary(ctx, nowMs, limit),
      /**
       * Ephemeral records and index rows carry their own TTL and the server removes them; there is
       * no per-expiry index to walk and no DELETE is ever sent, so this pass has nothing to examine.
       */
      gcExpiredHistory: async (_nowMs, limit) => {
        if (!Number.isInteger(limit) || limit < 1) throw new InvalidInputError('limit must be a positive integer');
        return { examined: 0, reclaimed: 0, more: false };
      },
    },
    reads: {
      historyPage: (authorizer, viewer, conversationId, query) => historyPage(ctx, authorizer, viewer, conversationId, query),
      conversationSummaries: (viewer, queries) => conversationSummaries(ctx, viewer, queries),
    },
  };
}
