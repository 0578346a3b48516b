import { UsageError, allowOnly } from '../cli-args';
import { jsonLine } from '../format';
import type { CommandContext } from './command-context';

/** `qim members add|remove <conversation> <user...>` and `qim members list <conversation>` (acting tenant). */
export async function membersCommand(ctx: CommandContext): Promise<number> {
  allowOnly('members', ctx.line.options, []);
  const [op, conversationId, ...users] = ctx.args;
  if (conversationId === undefined) throw new UsageError('members needs add|remove|list <conversation>');
  if (op === 'list') {
    if (users.length > 0) throw new UsageError('members list takes only <conversation>');
    const members = await ctx.client.members(conversationId, ctx.signal);
    if (ctx.json) ctx.io.out(jsonLine({ conversationId, members }));
    else for (const m of members) ctx.io.out(m);
    return 0;
  }
  if (op !== 'add' && op !== 'remove') throw new UsageError(`members: unknown operation ${JSON.stringify(op)} (add, remove, list)`);
  if (users.length === 0) throw new UsageError(`members ${op} needs <conversation> <user...>`);
  const count =
    op === 'add' ? await ctx.client.addMembers(conversationId, users, ctx.signal) : await ctx.client.removeMembers(conversationId, users, ctx.signal);
  if (ctx.json) ctx.io.out(jsonLine({ conversationId, members: count }));
  else ctx.io.out(`${op === 'add' ? 'added' : 'removed'} ${users.length}; ${count} member(s) now`);
  return 0;
}
