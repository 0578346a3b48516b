import type { CommitIntent, Publication } from '../model/message';

/**
 * Publishes the outbox event of a commit (Kafka topic `qim.messages` in production). Must only
 * resolve once the broker acknowledged the record; the event bytes must be a pure function of the
 * intent so that a re-publication after a crash is byte-identical.
 */
export interface OutboxPublisher {
  publish(intent: CommitIntent): Promise<Publication>;
}
