import type { TopicReport } from '@qim/bus';
import { createKafka, ensureTopics } from '@qim/bus';
import type { CommonConfig } from '../config/service-env';

/**
 * The explicit, documented topic step (`main.js create-topics`): creates the messages topic with
 * `QIM_MESSAGES_PARTITIONS` partitions and the dispatch topic with `shards` (= QIM_MAILBOX_SHARDS)
 * partitions, replication `QIM_KAFKA_REPLICATION`; verifies existing ones. Services never create topics.
 */
export async function createTopicsStep(config: CommonConfig, shards: number): Promise<TopicReport[]> {
  const kafka = createKafka({ brokers: config.kafka.brokers, clientId: `${config.kafka.clientId}-admin` });
  return ensureTopics(kafka, [
    { topic: config.kafka.messagesTopic, partitions: config.kafka.messagesPartitions, replicationFactor: config.kafka.replication },
    { topic: config.kafka.dispatchTopic, partitions: shards, replicationFactor: config.kafka.replication },
  ]);
}
