import type { Kafka, Message, Producer } from 'kafkajs';
import { Partitioners } from 'kafkajs';

/** Retries of one send before it fails (and the sender fences); backoff from the client's retry policy. */
export const DEFAULT_PRODUCER_RETRIES = 5;

/**
 * The retry policy of every producer of the project, stated in full so that `produceBudgetWithin`
 * holds whatever kafkajs' defaults are (they differ under `NODE_ENV=test`): backoff from 200 ms,
 * ±20 % jitter, doubling, capped at 30 s.
 */
export const PRODUCE_RETRY_POLICY = Object.freeze({ initialRetryTime: 200, factor: 0.2, multiplier: 2, maxRetryTime: 30_000 });

export interface IdempotentProducerOptions {
  readonly retries?: number;
  /** Called with each message and the partition the default partitioner chose for it. */
  readonly onPlaced?: (message: Message, partition: number) => void;
}

/**
 * The one producer configuration of the project: idempotent, one request in flight (so offsets
 * within a partition stay contiguous and in send order), no topic auto-creation (topics come from
 * the explicit create-topics step), bounded retries (safe only because its user fences after a
 * failed send: see `FencedProducer`) with the retry policy stated in full (`PRODUCE_RETRY_POLICY`).
 * Callers send with `acks: -1`.
 */
export function createIdempotentProducer(kafka: Kafka, options: IdempotentProducerOptions = {}): Producer {
  const onPlaced = options.onPlaced;
  return kafka.producer({
    idempotent: true,
    maxInFlightRequests: 1,
    allowAutoTopicCreation: false,
    retry: { ...PRODUCE_RETRY_POLICY, retries: options.retries ?? DEFAULT_PRODUCER_RETRIES },
    createPartitioner: () => {
      const partition = Partitioners.DefaultPartitioner();
      return (args) => {
        const p = partition(args);
        onPlaced?.(args.message, p);
        return p;
      };
    },
  });
}
