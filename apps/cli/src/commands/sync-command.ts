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
  allowOnly('sync', o, ['after', 'follow', 'wait-ms', 'page-size']);
  if (ctx.args.length > 0) throw new UsageError("sync takes no arguments (the mailbox is the acting user's)");
  let cursor: bigint | null = u64Option(o, 'after') ?? null;
  const pages = ctx.client.sync({
    after: cursor,
    limit: intOption(o, 'page-size'),
    follow: o.follow ?? false,
    waitMs: intOption(o, 'wait-ms'),
    signal: ctx.signal,
    onResync: (e) => ctx.io.err(`cursor ${e.cursor ?? 'start'} refused (${e.error.code}: ${e.error.message}); resyncing from the start`),
  });
  for await (const page of pages) {
    for (const e of page.entries) {
      if (ctx.json) ctx.io.out(jsonLine(entryJson(e)));
      else for (const line of entryLines(e)) ctx.io.out(line);
    }
    cursor = page.nextAfter;
  }
  if (!ctx.json && !o.follow) ctx.io.out(`cursor ${cursor ?? 'start'}`);
  return 0;
}
