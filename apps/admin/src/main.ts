import { ConfigError } from '@qim/service-kit';
import { parseServiceEnv, scyllaEnvSchema } from '@qim/backends';
import type { ScyllaEnvConfig } from '@qim/backends';
import { runMigrate } from './migrate-command';
import { runResetMailboxOffsets } from './reset-offsets-command';
import type { Output } from './output';
import { messageOf, processOutput } from './output';
import { USAGE } from './usage';
import { runVerify } from './verify-command';

const COMMANDS: ReadonlyMap<string, (config: ScyllaEnvConfig, io: Output) => Promise<number>> = new Map([
  ['migrate', runMigrate],
  ['verify', runVerify],
]);

/** The operator CLI: `<command>` → config (the services' Scylla variables) → the command; returns the exit status. */
async function main(args: readonly string[], io: Output): Promise<number> {
  const [name, ...rest] = args;
  if (name === '--help' || name === '-h') {
    io.out(USAGE);
    return 2;
  }
  if (name === 'reset-mailbox-offsets') return runResetMailboxOffsets(rest, io);
  const command = name === undefined ? undefined : COMMANDS.get(name);
  if (command === undefined || rest.length > 0) {
    io.err(name === undefined ? 'no command given' : `unknown command: ${args.join(' ')}`);
    io.err(USAGE);
    return 2;
  }
  let config: ScyllaEnvConfig;
  try {
    config = parseServiceEnv(scyllaEnvSchema, process.env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    io.err('invalid configuration (nothing was contacted or altered):');
    for (const issue of err.issues) io.err(`  ${issue.variable}: ${issue.message}`);
    return 2;
  }
  return command(config, io);
}

void main(process.argv.slice(2), processOutput).then(
  (code) => (process.exitCode = code),
  (err: unknown) => {
    processOutput.err(`admin failed: ${messageOf(err)}`);
    process.exitCode = 1;
  },
);
