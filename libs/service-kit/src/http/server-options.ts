import type { FastifyServerOptions } from 'fastify';

/** Where log lines go (stdout when absent). */
export interface LogDestination {
  write(line: string): void;
}

export interface ServiceServerSettings {
  readonly service: string;
  readonly logLevel: string;
  readonly bodyLimit: number;
  /** Most time a client may take to send one whole request (ms): a slow client cannot hold a socket forever. */
  readonly requestTimeoutMs: number;
  readonly logStream?: LogDestination;
  /** Fastify's per-request log lines ("incoming request", "request completed"); off when absent. */
  readonly logRequests?: boolean;
}

/**
 * The Fastify options every service process uses: pino JSON logs tagged with the service, the body
 * limit, a request timeout, per-request log lines only when asked for (failures are logged by the
 * error handler with their request id either way), and no built-in closing answer (the error handler's closing guard
 * answers `{code, message}` instead).
 */
export function serviceServerOptions(s: ServiceServerSettings): FastifyServerOptions {
  return {
    logger: { level: s.logLevel, base: { service: s.service }, ...(s.logStream ? { stream: s.logStream } : {}) },
    bodyLimit: s.bodyLimit,
    requestTimeout: s.requestTimeoutMs,
    return503OnClosing: false,
    disableRequestLogging: s.logRequests !== true,
    // A caller's `x-request-id` (the typed client sends one per call) becomes the log's request id,
    // so the id in an error body can be found in the logs.
    requestIdHeader: 'x-request-id',
  };
}
