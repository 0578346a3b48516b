import { ConfigError, listenWithSignals, processReadBudget, serviceServerOptions } from '@qim/service-kit';
import { parseServiceEnv } from '@qim/backends';
import { startWriterRuntime, writerEnvSchema } from '@qim/writer-runtime';
import type { WriterConfig } from '@qim/writer-runtime';
import fastify from 'fastify';
import { writerApp } from './app';

/** Parses the environment or exits 2 naming every refused variable. */
function loadConfig(): WriterConfig {
  try {
    return parseServiceEnv(writerEnvSchema, process.env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`${JSON.stringify({ level: 'fatal', service: 'writer', code: err.code, msg: err.message, issues: err.issues })}\n`);
    process.exit(2);
  }
}

/**
 * The writer process: config → logger → runtime (fail closed) → HTTP → signals. A terminal
 * failure (the writer lease lost past its re-acquisition bound) ends it like SIGTERM, with exit 1.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const app = fastify(
    serviceServerOptions({
      service: 'writer',
      logLevel: config.logLevel,
      logRequests: config.logRequests,
      bodyLimit: config.http.bodyLimit,
      requestTimeoutMs: config.http.requestTimeoutMs,
    }),
  );
  let runtime;
  try {
    runtime = await startWriterRuntime(config, app.log);
  } catch (err) {
    app.log.fatal({ err }, `start-up refused: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  }
  await app.register(writerApp, {
    serviceTokens: config.serviceTokens,
    sender: runtime.sender,
    store: runtime.store,
    membership: runtime.membership,
    authorizer: runtime.authorizer,
    maxFanout: config.maxFanout,
    sendBatch: config.sendBatch,
    readBudget: processReadBudget(config.readBudget, runtime.metrics),
    metrics: runtime.metrics,
    readiness: runtime.readiness,
  });
  await listenWithSignals({
    app,
    stack: runtime.stack,
    host: config.http.host,
    port: config.http.port,
    shutdownGraceMs: config.shutdownGraceMs,
    shutdownDeadlineMs: config.shutdownDeadlineMs,
    terminal: runtime.terminal,
  });
  app.log.info({ writerId: runtime.writerId, backend: config.backend.kind }, 'writer ready');
}

void main().catch((err: unknown) => {
  process.stderr.write(`${JSON.stringify({ level: 'fatal', service: 'writer', msg: err instanceof Error ? err.message : String(err) })}\n`);
  process.exit(1);
});
