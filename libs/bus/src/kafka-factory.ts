import net from 'node:net';
import tls from 'node:tls';
import { Kafka, logLevel } from 'kafkajs';
import type { ISocketFactory, LogEntry } from 'kafkajs';

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

/**
 * kafkajs' own socket factory, plus TCP_NODELAY. kafkajs never turns Nagle's algorithm off, so a
 * small request written while an earlier one's bytes are not yet acknowledged waits for that ACK —
 * and a broker holding a fetch (up to its max wait) delays the ACK (up to 40 ms on Linux): an
 * OffsetCommit, heartbeat or produce on that connection then waits too. Our requests are small and
 * latency-bound, and the broker already sets TCP_NODELAY on its side. Keep-alive as kafkajs (60 s).
 */
export function noDelaySocketFactory(): ISocketFactory {
  return ({ host, port, ssl, onConnect }) => {
    const socket = ssl
      ? tls.connect({ host, port, ...(net.isIP(host) ? {} : { servername: host }), ...ssl }, onConnect)
      : net.connect({ host, port }, onConnect);
    socket.setNoDelay(true);
    socket.setKeepAlive(true, 60_000);
    return socket;
  };
}

/** The one place a `Kafka` client is constructed: brokers, client id, log routing, retry policy, sockets without Nagle. */
export function createKafka(s: KafkaSettings): Kafka {
  const logger = s.logger;
  return new Kafka({
    clientId: s.clientId,
    brokers: [...s.brokers],
    connectionTimeout: s.connectionTimeoutMs ?? 3_000,
    ...(s.requestTimeoutMs === undefined ? {} : { requestTimeout: s.requestTimeoutMs }),
    retry: { initialRetryTime: 200, retries: s.retries ?? 8 },
    socketFactory: noDelaySocketFactory(),
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
