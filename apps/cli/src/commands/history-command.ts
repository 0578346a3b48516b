import { UsageError, allowOnly, intOption, u64Option } from '../cli-args';
import { jsonLine, messageJson, messageLine } from '../format';
import type { CommandContext } from './command-context';

/** `qim history <conversation>`: messages page by page, newest first by default, up to `--limit` (or `--all`). */
export async function historyCommand(ctx: CommandContext): Promise<number> {
  const o = ctx.line.options;
  allowOnly('history', o, ['direction', 'anchor', 'page-size', 'limit', 'all']);
  const [conversationId, ...rest] = ctx.args;
  if (conversationId === undefined || rest.length > 0) throw new UsageError('history needs exactly one <conversation>');
  const direction = o.direction ?? 'older';
  if (direction !== 'older' && direction !== 'newer') throw new UsageError('--direction must be older or newer');
  const limit = o.all ? Infinity : intOption(o, 'limit', 50);
  let printed = 0;
  const pages = ctx.client.history(conversationId, { direction, anchor: u64Option(o, 'anchor'), maxItems: intOption(o, 'page-size'), signal: ctx.signal });
  for await (const page of pages) {
    for (const m of page.items) {
      if (printed >= limit) return 0;
      ctx.io.out(ctx.json ? jsonLine(messageJson(m)) : messageLine(m));
      printed++;
    }
    if (printed >= limit) return 0;
  }
  return 0;
}
