import type { SyncPage } from '@qim/client';
import { QimResyncRequiredError, QimTransportError, QimUnavailableError } from '@qim/client';
import { allowOnly, intOption, u64Option, UsageError } from '../cli-args';
import { entryJson, entryLines, jsonLine } from '../format';
import type { CommandContext } from './command-context';

/**
 * `qim sync [--follow]`: the acting user's mailbox entries from `--after` (default: the start), one
 * line (or JSON line) per event as they arrive. On a refused cursor (410) it says so on stderr and
 * resyncs from the start. Without `--follow` it ends when caught up and prints the cursor to resume from.
 */
export async function syncCommand(ctx: CommandContext): Promise<number> {
  const o = ctx.line.options;
  allowOnly('sync', o, ['after', 'follow', 'stream', 'wait-ms', 'page-size']);
  if (ctx.args.length > 0) throw new UsageError("sync takes no arguments (the mailbox is the acting user's)");
  if (o.stream && o['wait-ms'] !== undefined) throw new UsageError('sync --stream takes no --wait-ms (the mailbox sets the waits of a stream)');
  let cursor: bigint | null = u64Option(o, 'after') ?? null;
  const print = (page: SyncPage): void => {
    for (const e of page.entries) {
      if (ctx.json) ctx.io.out(jsonLine(entryJson(e)));
      else for (const line of entryLines(e)) ctx.io.out(line);
    }
  };
  if (o.stream) return followByStream(ctx, cursor, intOption(o, 'page-size'), print);
  const pages = ctx.client.sync({
    after: cursor,
    limit: intOption(o, 'page-size'),
    follow: o.follow ?? false,
    waitMs: intOption(o, 'wait-ms'),
    signal: ctx.signal,
    onResync: (e) => ctx.io.err(`cursor ${e.cursor ?? 'start'} refused (${e.error.code}: ${e.error.message}); resyncing from the start`),
  });
  for await (const page of pages) {
    print(page);
    cursor = page.nextAfter;
  }
  if (!ctx.json && !o.follow) ctx.io.out(`cursor ${cursor ?? 'start'}`);
  return 0;
}

/** Pause before a stream is opened again after the service was unreachable or answered 503 (ms). */
const RECONNECT_MS = 1_000;

/**
 * `qim sync --stream`: follows the mailbox by streamed syncs (ADR-0042) until stopped, each opened
 * from the cursor the last one reached: again at once when the service ends a stream, after a
 * second when it was unreachable or answered 503 (said on stderr). A refused cursor (410) resyncs
 * from the start, as without `--stream`; a refusal of the start itself right after ends the command.
 */
async function followByStream(ctx: CommandContext, from: bigint | null, limit: number | undefined, print: (page: SyncPage) => void): Promise<number> {
  let cursor = from;
  let resynced = false;
  while (!ctx.signal.aborted) {
    try {
      for await (const page of ctx.client.stream({ after: cursor, limit, signal: ctx.signal })) {
        print(page);
        cursor = page.nextAfter;
        resynced = false;
      }
    } catch (err) {
      if (err instanceof QimResyncRequiredError && !resynced) {
        ctx.io.err(`cursor ${cursor ?? 'start'} refused (${err.code}: ${err.message}); resyncing from the start`);
        cursor = null;
        resynced = true;
        continue;
      }
      if (!(err instanceof QimTransportError || err instanceof QimUnavailableError)) throw err;
      ctx.io.err(`stream interrupted (${err.code}: ${err.message}); reconnecting from cursor ${cursor ?? 'start'}`);
      await pause(RECONNECT_MS, ctx.signal);
    }
  }
  return 0;
}

/** Waits `ms`, or less when `signal` aborts first (then without a listener left behind). */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
