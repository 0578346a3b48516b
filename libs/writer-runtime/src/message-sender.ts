import type { DurableMessageCommitter, MembershipDirectory, SendOutcome, SendRequest } from '@qim/store-core';
import { FanoutLimitError, ForbiddenError, validateSendRequest } from '@qim/store-core';
import type { IssuedId } from './identity/message-id-source';
import { outboxEventBytes } from './outbox-event-size';
import type { WriterMetrics } from './writer-metrics';

export interface MessageSenderDeps {
  readonly membership: MembershipDirectory;
  readonly committer: Pick<DurableMessageCommitter, 'send'>;
  /** Issues a fresh candidate id; throws when the writer lease is not held. */
  readonly issueId: () => IssuedId;
  readonly maxFanout: number;
  /**
   * The largest outbox event the messages topic takes (bytes; `KafkaOutboxPublisher.maxEventBytes`,
   * from the topic's `max.message.bytes` read at start-up). A send whose event would be larger is
   * refused before reserve. Absent or null: no bound known (a publisher without one).
   */
  readonly maxEventBytes?: () => number | null;
  readonly metrics: WriterMetrics;
  /**
   * The original answer when the request is a replay of an existing commit (`replayAnswer`), else
   * null. Asked only when the membership rules would refuse the request, so a sender who has left
   * the conversation (or a conversation grown past the cap) still gets its first answer. Absent →
   * those refusals are final.
   */
  readonly replayOf?: (request: SendRequest) => Promise<SendOutcome | null>;
}

/**
 * The writer's send path: validate → sender ∈ members (else FORBIDDEN, nothing written) →
 * member snapshot within `maxFanout`, and its outbox event within the topic's record limit (else
 * FANOUT_LIMIT; nothing reserved, no seq spent) → candidate id from the leased HLC id
 * source → `DurableMessageCommitter.send` (replay returns the first answer; other content for the
 * same client id → CONFLICT).
 */
export class MessageSender {
  constructor(private readonly deps: MessageSenderDeps) {}

  async send(request: SendRequest): Promise<SendOutcome> {
    const { membership, metrics } = this.deps;
    try {
      validateSendRequest(request);
      const members = await membership.members(request.tenantId, request.conversationId);
      const maxEvent = this.deps.maxEventBytes?.() ?? null;
      const eventBytes = maxEvent === null ? 0 : outboxEventBytes(request, members);
      const oversized = maxEvent !== null && eventBytes > maxEvent;
      if (!members.includes(request.senderId) || members.length > this.deps.maxFanout || oversized) {
        const replay = (await this.deps.replayOf?.(request)) ?? null;
        if (replay !== null) {
          metrics.commits.inc({ outcome: 'replay' });
          return replay;
        }
      }
      if (!members.includes(request.senderId)) {
        throw new ForbiddenError('the sender is not a member of the conversation');
      }
      if (members.length > this.deps.maxFanout) {
        throw new FanoutLimitError(`conversation has ${members.length} members; the limit (QIM_MAX_FANOUT) is ${this.deps.maxFanout}`);
      }
      if (oversized) {
        throw new FanoutLimitError(
          `the message event would be ${eventBytes} bytes (${members.length} recipients); the messages topic takes at most ${maxEvent} (its max.message.bytes)`,
        );
      }
      const { messageId, createdAt } = this.deps.issueId();
      const outcome = await this.deps.committer.send({ request, messageId, createdAt, recipients: members });
      metrics.commits.inc({ outcome: outcome.replay ? 'replay' : 'committed' });
      return outcome;
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      metrics.commits.inc({ outcome: typeof code === 'string' ? code.toLowerCase() : 'failed' });
      throw err;
    }
  }
}
