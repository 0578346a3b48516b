import type { MessageKind, Retention } from '@qim/client';
import { UsageError, allowOnly, intOption } from '../cli-args';
import { jsonLine } from '../format';
import type { CommandContext } from './command-context';
import { sendFileCommand } from './send-file';

const KINDS: readonly MessageKind[] = ['normal', 'edited', 'recalled', 'system'];

/** `qim send <conversation> <text...>`: one message as the acting user; `qim send --file FILE`: one per JSON line, in batches. */
export async function sendCommand(ctx: CommandContext): Promise<number> {
  const o = ctx.line.options;
  if (o.file !== undefined) {
    allowOnly('send --file', o, ['file', 'batch-size']);
    if (ctx.args.length > 0) throw new UsageError('send --file takes no <conversation> <text...>');
    return sendFileCommand(ctx, o.file);
  }
  allowOnly('send', o, ['kind', 'content-type', 'control', 'ttl', 'client-id']);
  const [conversationId, ...words] = ctx.args;
  if (conversationId === undefined || words.length === 0) throw new UsageError('send needs <conversation> <text...>');
  const kind = o.kind ?? 'normal';
  if (!(KINDS as readonly string[]).includes(kind)) throw new UsageError(`--kind must be one of ${KINDS.join(', ')}`);
  const ttl = intOption(o, 'ttl');
  const retention: Retention = ttl === undefined ? { kind: 'default' } : { kind: 'ephemeral', ttlSeconds: ttl };
  const r = await ctx.client.send(
    {
      conversationId,
      body: words.join(' '),
      kind: kind as MessageKind,
      contentType: o['content-type'],
      control: o.control,
      retention,
      clientMessageId: o['client-id'],
    },
    ctx.signal,
  );
  if (ctx.json) ctx.io.out(jsonLine(r));
  else ctx.io.out(`${r.replay ? 'already sent' : 'sent'} #${r.seq} message ${r.messageId} (client id ${r.clientMessageId})`);
  return 0;
}
