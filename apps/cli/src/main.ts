import { processIo } from './cli-io';
import { runCli } from './run-cli';

/** The `qim` process: SIGINT/SIGTERM stop a follow quietly; the exit status comes from the command. */
const stop = new AbortController();
process.once('SIGINT', () => stop.abort());
process.once('SIGTERM', () => stop.abort());

void runCli(process.argv.slice(2), process.env, processIo, stop.signal).then(
  (code) => (process.exitCode = code),
  (err: unknown) => {
    processIo.err(`qim failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exitCode = 1;
  },
);
