import { ConfigError, listenWithSignals, serviceServerOptions } from '@qim/service-kit';
import { parseServiceEnv } from '@qim/backends';
import { createTopicsStep, mailboxEnvSchema, startMailboxRuntime } from '@qim/mailbox-runtime';
import type { MailboxConfig } from '@qim/mailbox-runtime';
import fastify from 'fastify';
import { mailboxApp } from './app';

/** Parses the environment or exits 2 naming every refused variable. */
function loadConfig(): MailboxConfig {
  try {
    return parseServiceEnv(mailboxEnvSchema, process.env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`${JSON.stringify({ level: 'fatal', service: 'mailbox', code: err.code, msg: err.message, issues: err.issues })}\n`);
    process.exit(2);
  }
}

/** `main.js create-topics`: the explicit topic step, then exit. */
async function createTopics(config: MailboxConfig): Promise<void> {
  const reports = await createTopicsStep(config, config.shards);
  for (const r of reports) process.stdout.write(`${r.created ? 'created' : 'verified'} topic ${r.topic} (${r.partitions} partitions)\n`);
}

/** The mailbox process: config → logger → runtime (fail closed) → HTTP → signals. */
async function serve(config: MailboxConfig): Promise<void> {
  const app = fastify(
    serviceServerOptions({
      service: 'mailbox',
      logLevel: config.logLevel,
      logRequests: config.logRequests,
      bodyLimit: config.http.bodyLimit,
      requestTimeoutMs: config.http.requestTimeoutMs,
    }),
  );
  let runtime;
  try {
    runtime = await startMailboxRuntime(config, app.log);
  } catch (err) {
    app.log.fatal({ err }, `start-up refused: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  }
  await app.register(mailboxApp, {
    serviceTokens: config.serviceTokens,
    reader: runtime.reader,
    status: runtime.status,
    syncMaxLimit: config.syncMaxLimit,
    syncMaxWaitMs: config.syncMaxWaitMs,
    syncStreamMaxMs: config.syncStreamMaxMs,
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
  app.log.info({ backend: config.backend.kind, shards: config.shards, epoch: config.epoch }, 'mailbox ready');
}

async function main(): Promise<void> {
  const command = process.argv[2] ?? 'serve';
  const config = loadConfig();
  if (command === 'create-topics') return createTopics(config);
  if (command === 'serve') return serve(config);
  throw new Error(`unknown command "${command}" (expected: serve | create-topics)`);
}

void main().catch((err: unknown) => {
  process.stderr.write(`${JSON.stringify({ level: 'fatal', service: 'mailbox', msg: err instanceof Error ? err.message : String(err) })}\n`);
  process.exit(1);
});
