import type { FastifyInstance } from 'fastify';
import type { ShutdownStack } from './shutdown-stack';
import type { TerminalFailure } from './terminal-failure';

export interface RunningService {
  readonly app: FastifyInstance;
  readonly stack: ShutdownStack;
  readonly host: string;
  readonly port: number;
  /** Bound of each closing step (ms). */
  readonly shutdownGraceMs: number;
  /** The one global bound from the signal to the exit (ms); past it the process exits 1 at once. */
  readonly shutdownDeadlineMs?: number;
  /** When raised, the process shuts down the same bounded way and exits 1 with the reason. */
  readonly terminal?: TerminalFailure;
}

/** What ended the process, and what failed while closing. */
export interface ShutdownOutcome {
  readonly failed: readonly string[];
  readonly exitCode: number;
}

/**
 * The shutdown sequence under one global deadline: stop accepting HTTP (in-flight requests
 * drain), then close the stack in reverse order, every step bounded by what is left of the
 * deadline. Exit code 0 only for a clean stop that was not caused by a terminal failure.
 */
export async function shutDown(s: RunningService, cause: { signal?: string; terminal?: string }): Promise<ShutdownOutcome> {
  const deadlineMs = s.shutdownDeadlineMs ?? s.shutdownGraceMs * 2;
  const deadlineAt = Date.now() + deadlineMs;
  const failed: string[] = [];
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      s.app.close(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`http did not drain within ${deadlineMs} ms`)), deadlineMs);
      }),
    ]);
  } catch (err) {
    failed.push('http');
    s.app.log.error({ err }, 'closing http failed');
  } finally {
    clearTimeout(timer);
  }
  const log = (msg: string, err?: unknown) => (err ? s.app.log.error({ err }, msg) : s.app.log.info(msg));
  failed.push(...(await s.stack.closeAll({ stepMs: s.shutdownGraceMs, deadlineAt }, log)));
  const exitCode = cause.terminal !== undefined || failed.length > 0 ? 1 : 0;
  s.app.log.info({ failed, exitCode, ...cause }, 'stopped');
  return { failed, exitCode };
}

/**
 * Listens, then on SIGTERM/SIGINT or a terminal failure runs `shutDown` and exits with its code.
 * A hard timer exits 1 when the global deadline passes anyway; a second signal exits 1 at once.
 */
export async function listenWithSignals(s: RunningService): Promise<void> {
  let stopping = false;
  const stop = async (cause: { signal?: string; terminal?: string }) => {
    if (stopping) {
      if (cause.signal !== undefined) process.exit(1);
      return;
    }
    stopping = true;
    if (cause.terminal !== undefined) s.app.log.fatal({ reason: cause.terminal }, `terminal failure, exiting: ${cause.terminal}`);
    else s.app.log.info(cause, 'shutting down');
    const deadlineMs = s.shutdownDeadlineMs ?? s.shutdownGraceMs * 2;
    setTimeout(() => {
      s.app.log.fatal({ deadlineMs }, 'shutdown deadline passed, exiting');
      process.exit(1);
    }, deadlineMs).unref();
    const { exitCode } = await shutDown(s, cause);
    process.exit(exitCode);
  };
  process.on('SIGTERM', () => void stop({ signal: 'SIGTERM' }));
  process.on('SIGINT', () => void stop({ signal: 'SIGINT' }));
  void s.terminal?.reason.then((reason) => stop({ terminal: reason }));
  await s.app.listen({ host: s.host, port: s.port });
}
