import type { FastifyInstance } from 'fastify';
import type { ShutdownStack } from './shutdown-stack';

export interface RunningService {
  readonly app: FastifyInstance;
  readonly stack: ShutdownStack;
  readonly host: string;
  readonly port: number;
  readonly shutdownGraceMs: number;
}

/**
 * Listens, then on SIGTERM/SIGINT: stop accepting HTTP (in-flight requests drain), close the
 * stack in reverse order, exit 0 (1 when a step failed). A second signal exits at once.
 */
export async function listenWithSignals(s: RunningService): Promise<void> {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) process.exit(1);
    stopping = true;
    s.app.log.info({ signal }, 'shutting down');
    const failed: string[] = [];
    try {
      await s.app.close();
    } catch (err) {
      failed.push('http');
      s.app.log.error({ err }, 'closing http failed');
    }
    failed.push(
      ...(await s.stack.closeAll(s.shutdownGraceMs, (msg, err) => (err ? s.app.log.error({ err }, msg) : s.app.log.info(msg)))),
    );
    s.app.log.info({ failed }, 'stopped');
    process.exit(failed.length === 0 ? 0 : 1);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  await s.app.listen({ host: s.host, port: s.port });
}
