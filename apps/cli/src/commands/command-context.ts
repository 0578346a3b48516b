import type { QimClient } from '@qim/client';
import type { CommandLine } from '../cli-args';
import type { CliIo } from '../cli-io';

/** What every command gets: its arguments (after the command words), the client, the output and a stop signal. */
export interface CommandContext {
  readonly args: readonly string[];
  readonly line: CommandLine;
  readonly client: QimClient;
  readonly io: CliIo;
  readonly json: boolean;
  /** Aborted on SIGINT/SIGTERM: a follow ends quietly. */
  readonly signal: AbortSignal;
}

/** A command: resolves to the exit status. */
export type Command = (ctx: CommandContext) => Promise<number>;
