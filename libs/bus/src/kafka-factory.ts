import { Kafka, logLevel } from 'kafkajs';
import type { LogEntry } from 'kafkajs';

/** A structured log sink (pino-compatible subset) for kafkajs' own log lines. */
export interface BusLogger {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

export interface KafkaSettings {
  readonly brokers: readonly string[];
  readonly clientId: string;
  readonly logger?: BusLogger;
  /** Connection timeout per broker (ms). */
  readonly connectionTimeoutMs?: number;
}

/** The one place a `Kafka` client is constructed: brokers, client id, log routing, retry policy. */
export function createKafka(s: KafkaSettings): Kafka {
  const logger = s.logger;
  return new Kafka({
    clientId: s.clientId,
    brokers: [...s.brokers],
    connectionTimeout: s.connectionTimeoutMs ?? 3_000,
    retry: { initialRetryTime: 200, retries: 8 },
    logLevel: logLevel.WARN,
    logCreator: () => (entry: LogEntry) => {
      if (!logger) return;
      const { message, ...rest } = entry.log;
      const obj = { kafka: entry.namespace, ...rest };
      if (entry.level === logLevel.ERROR) logger.error(obj, String(message));
      else if (entry.level === logLevel.WARN) logger.warn(obj, String(message));
      else logger.info(obj, String(message));
    },
  });
}
