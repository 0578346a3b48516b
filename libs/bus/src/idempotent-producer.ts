import type { Kafka, Producer } from 'kafkajs';
import { Partitioners } from 'kafkajs';

/**
 * The one producer configuration of the project: idempotent, one request in flight (so offsets
 * within a partition stay contiguous and in send order), no topic auto-creation (topics come from
 * the explicit create-topics step). Callers send with `acks: -1`.
 */
export function createIdempotentProducer(kafka: Kafka): Producer {
  return kafka.producer({
    idempotent: true,
    maxInFlightRequests: 1,
    allowAutoTopicCreation: false,
    createPartitioner: Partitioners.DefaultPartitioner,
  });
}
