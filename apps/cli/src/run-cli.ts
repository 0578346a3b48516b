import { QimClient, QimError } from '@qim/client';
import type { CommandLine } from './cli-args';
import { UsageError, clientOptions, parseCommandLine } from './cli-args';
import type { CliIo } from './cli-io';
import type { Command } from './commands/command-context';
import { historyCommand } from './commands/history-command';
import { membersCommand } from './commands/members-command';
import { sendCommand } from './commands/send-command';
import { statusCommand } from './commands/status-command';
import { syncCommand } from './commands/sync-command';
import { USAGE } from './usage';

const COMMANDS: ReadonlyMap<string, Command> = new Map([
  ['send', sendCommand],
  ['history', historyCommand],
  ['sync', syncCommand],
  ['members', membersCommand],
  ['status', statusCommand],
]);

/** `CODE (status, request id): message`, plus the client message id of a failed send. */
function describeFailure(err: QimError): string {
  const where = [err.status === null ? null : String(err.status), err.requestId === null ? null : `request ${err.requestId}`].filter((x) => x !== null);
  const client = err.clientMessageId === null ? '' : ` — retry with --client-id ${err.clientMessageId}`;
  return `${err.code}${where.length > 0 ? ` (${where.join(', ')})` : ''}: ${err.message}${client}`;
}

/**
 * The `qim` command line: options from flags, then the environment (QIM_WRITER_URL,
 * QIM_MAILBOX_URL, QIM_SERVICE_TOKEN — or `--token-file`, never a flag's value —, QIM_TENANT_ID,
 * QIM_USER_ID). Resolves to the exit status:
 * 0 done, 1 the services refused or failed (typed error on stderr), 2 usage or configuration,
 * 130 stopped by a signal before the command was done (a follow ends with 0).
 */
export async function runCli(argv: readonly string[], env: Readonly<Record<string, string | undefined>>, io: CliIo, signal: AbortSignal): Promise<number> {
  let line: CommandLine;
  try {
    line = parseCommandLine(argv);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.err(`qim: ${err.message}`);
    io.err(USAGE);
    return 2;
  }
  const [name, ...args] = line.positionals;
  if (line.options.help || name === undefined) {
    (line.options.help ? io.out : io.err)(USAGE);
    return line.options.help ? 0 : 2;
  }
  const command = COMMANDS.get(name);
  try {
    if (command === undefined) throw new UsageError(`unknown command ${JSON.stringify(name)}`);
    const client = new QimClient(clientOptions(line.options, env));
    return await command({ args, line, client, io, json: line.options.json ?? false, signal });
  } catch (err) {
    if (signal.aborted) {
      // A send stopped in flight may have been committed: only its id makes a repeat safe.
      if (err instanceof QimError && err.clientMessageId !== null) {
        io.err(`qim: stopped; the message may have been sent — repeat with --client-id ${err.clientMessageId} (never a new id)`);
      }
      return 130;
    }
    if (err instanceof UsageError || (err instanceof QimError && err.code === 'INVALID_ARGUMENT')) {
      io.err(`qim: ${err.message}`);
      if (err instanceof UsageError) io.err(USAGE);
      return 2;
    }
    if (err instanceof QimError) {
      io.err(`qim: ${describeFailure(err)}`);
      return 1;
    }
    throw err;
  }
}
