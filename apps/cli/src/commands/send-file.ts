import type { MessageKind, Retention, SendInput, SendManyItem } from '@qim/client';
import { readFileSync } from 'node:fs';
import { UsageError, intOption } from '../cli-args';
import { jsonLine } from '../format';
import type { CommandContext } from './command-context';

const KINDS: readonly string[] = ['normal', 'edited', 'recalled', 'system'];
const FIELDS: ReadonlySet<string> = new Set(['conversation_id', 'text', 'body', 'client_message_id', 'kind', 'content_type', 'control', 'ttl_seconds']);

/** One message of a `--file`, with the line it came from (1-based). */
interface FileMessage {
  readonly line: number;
  readonly input: SendInput;
}

function lineInput(text: string, line: number): SendInput {
  const bad = (why: string) => new UsageError(`--file line ${line}: ${why}`);
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw bad('not JSON');
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw bad('not a JSON object');
  const o = v as Record<string, unknown>;
  const unknown = Object.keys(o).find((k) => !FIELDS.has(k));
  if (unknown !== undefined) throw bad(`unknown field ${unknown}`);
  const str = (k: string) => {
    if (o[k] !== undefined && typeof o[k] !== 'string') throw bad(`${k} must be a string`);
    return o[k] as string | undefined;
  };
  const conversationId = str('conversation_id');
  if (conversationId === undefined) throw bad('conversation_id is required');
  const [textBody, b64] = [str('text'), str('body')];
  if ((textBody === undefined) === (b64 === undefined)) throw bad('one of text or body (base64) is required');
  const kind = str('kind') ?? 'normal';
  if (!KINDS.includes(kind)) throw bad(`kind must be one of ${KINDS.join(', ')}`);
  if (o['control'] !== undefined && typeof o['control'] !== 'boolean') throw bad('control must be a boolean');
  const ttl = o['ttl_seconds'];
  if (ttl !== undefined && (typeof ttl !== 'number' || !Number.isInteger(ttl) || ttl < 1)) throw bad('ttl_seconds must be a positive integer');
  const retention: Retention = ttl === undefined ? { kind: 'default' } : { kind: 'ephemeral', ttlSeconds: ttl };
  return {
    conversationId,
    body: textBody ?? new Uint8Array(Buffer.from(b64!, 'base64')),
    kind: kind as MessageKind,
    contentType: str('content_type'),
    control: o['control'] as boolean | undefined,
    retention,
    clientMessageId: str('client_message_id'),
  };
}

/** Every message of the file (`-`: standard input); blank lines are skipped. A malformed line refuses the whole file. */
function readMessages(path: string): FileMessage[] {
  let text: string;
  try {
    text = readFileSync(path === '-' ? 0 : path, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read --file ${path}: ${(err as { code?: unknown }).code ?? (err as Error).message}`);
  }
  const out: FileMessage[] = [];
  text.split(/\r?\n/).forEach((l, i) => {
    if (l.trim() !== '') out.push({ line: i + 1, input: lineInput(l, i + 1) });
  });
  if (out.length === 0) throw new UsageError(`--file ${path} holds no message`);
  return out;
}

function itemLine(line: number, item: SendManyItem, json: boolean): string {
  if (json) {
    return item.ok
      ? jsonLine({ line, ok: true, clientMessageId: item.clientMessageId, result: item.result })
      : jsonLine({
          line,
          ok: false,
          clientMessageId: item.clientMessageId,
          code: item.error.code,
          status: item.error.status,
          message: item.error.message,
          requestId: item.error.requestId,
        });
  }
  if (item.ok) {
    const r = item.result;
    return `line ${line}: ${r.replay ? 'already sent' : 'sent'} #${r.seq} message ${r.messageId} (client id ${r.clientMessageId})`;
  }
  const e = item.error;
  const where = [e.status === null ? null : String(e.status), e.requestId === null ? null : `request ${e.requestId}`].filter((x) => x !== null);
  return `line ${line}: ${e.code}${where.length > 0 ? ` (${where.join(', ')})` : ''}: ${e.message} — retry with client_message_id ${item.clientMessageId}`;
}

/**
 * `qim send --file messages.jsonl`: one message per JSON line (`conversation_id`, `text` or base64
 * `body`, optional `client_message_id`, `kind`, `content_type`, `control`, `ttl_seconds`), sent in
 * batches of `--batch-size` (default 100, the writer's default `QIM_SEND_BATCH_MAX`) through
 * `sendMany`. Prints one line per message with its outcome and client id (a failed one: the id to
 * put in that line to retry it safely). Exit 1 when any send failed.
 */
export async function sendFileCommand(ctx: CommandContext, path: string): Promise<number> {
  const batchSize = intOption(ctx.line.options, 'batch-size', 100);
  if (batchSize < 1) throw new UsageError('--batch-size must be at least 1');
  const messages = readMessages(path);
  let failed = 0;
  for (let i = 0; i < messages.length; i += batchSize) {
    const chunk = messages.slice(i, i + batchSize);
    const items = await ctx.client.sendMany(
      chunk.map((m) => m.input),
      ctx.signal,
    );
    items.forEach((item, k) => {
      if (!item.ok) failed++;
      ctx.io.out(itemLine(chunk[k]!.line, item, ctx.json));
    });
    if (ctx.signal.aborted) break;
  }
  if (failed > 0) ctx.io.err(`qim: ${failed} of ${messages.length} sends failed`);
  return failed > 0 ? 1 : 0;
}
