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
  /**
   * How long a request may wait for its response before it fails (ms, kafkajs default 30 000).
   * A produce that times out is ambiguous (it may have been appended); producers fence after it.
   */
  readonly requestTimeoutMs?: number;
  /** Retries of a failed request, each after an exponential backoff from 200 ms (default 8). */
  readonly retries?: number;
}

/**
 * kafkajs warns on every producer with bounded retries that this "may invalidate EoS guarantees":
 * true for a producer that keeps its sequence after a failure, not for ours, which fences
 * (new producer id) after any failed send. Dropped so that each fence does not log a false alarm.
 */
const BOUNDED_RETRY_WARNING = 'Limiting retries for the idempotent producer may invalidate EoS guarantees';

/** The one place a `Kafka` client is constructed: brokers, client id, log routing, retry policy. */
export function createKafka(s: KafkaSettings): Kafka {
  const logger = s.logger;
  return new Kafka({
    clientId: s.clientId,
    brokers: [...s.brokers],
    connectionTimeout: s.connectionTimeoutMs ?? 3_000,
    ...(s.requestTimeoutMs === undefined ? {} : { requestTimeout: s.requestTimeoutMs }),
    retry: { initialRetryTime: 200, retries: s.retries ?? 8 },
    logLevel: logLevel.WARN,
    logCreator: () => (entry: LogEntry) => {
      if (!logger) return;
      const { message, ...rest } = entry.log;
      if (message === BOUNDED_RETRY_WARNING) return;
      const obj = { kafka: entry.namespace, ...rest };
      if (entry.level === logLevel.ERROR) logger.error(obj, String(message));
      else if (entry.level === logLevel.WARN) logger.warn(obj, String(message));
      else logger.info(obj, String(message));
    },
  });
}
