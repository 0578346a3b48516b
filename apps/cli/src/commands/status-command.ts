import type { Readiness, ShardStatus } from '@qim/client';
import { QimError, QimInvalidInputError, QimTransportError } from '@qim/client';
import { UsageError, allowOnly, intOption } from '../cli-args';
import { jsonLine } from '../format';
import type { CommandContext } from './command-context';

type Outcome<T> = { readonly ok: T } | { readonly error: QimError };

const MAX_SHARDS = 1024;

async function outcome<T>(p: Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: await p };
  } catch (err) {
    if (err instanceof QimError) return { error: err };
    throw err;
  }
}

const errorJson = (e: QimError) => ({ code: e.code, status: e.status, message: e.message, requestId: e.requestId });
const short = (v: unknown) => (v === undefined ? '' : ` (${(typeof v === 'string' ? v : JSON.stringify(v)).slice(0, 80)})`);

function readinessLine(name: string, r: Outcome<Readiness>): string {
  if ('error' in r) return `${name.padEnd(8)} UNREACHABLE  ${r.error.code}: ${r.error.message}`;
  const checks = Object.entries(r.ok.checks).map(([k, c]) => (c.ok ? `${k} ok` : `${k} FAIL${short(c.detail)}`));
  return `${name.padEnd(8)} ${(r.ok.ready ? 'ready' : 'NOT READY').padEnd(12)} ${checks.join(' · ')}`;
}

function shardLine(s: ShardStatus): string {
  const frontier = s.frontier === undefined ? 'not reported' : s.frontier === null ? 'none yet' : s.frontier.toString();
  const here = s.assignedHere === null ? '' : s.assignedHere ? '  assigned here' : '  not assigned here';
  const unapplied = s.unapplied === null ? '' : `  unapplied ${s.unapplied}`;
  const stall = s.stall === null ? '' : `  STALLED${short(s.stall['reason'])}`;
  return `shard ${s.shard}  epoch ${s.epoch}  frontier ${frontier}  lag ${s.lag ?? 'unknown'}${unapplied}${here}${stall}`;
}

/** The listed shards, or every shard from 0 until the mailbox refuses the number as beyond its count. */
async function shardStatuses(
  ctx: CommandContext,
  listed: readonly number[] | null,
): Promise<{ shards: ShardStatus[]; error: { shard: number; error: QimError } | null }> {
  const shards: ShardStatus[] = [];
  for (let shard = 0; listed === null ? shard < MAX_SHARDS : shard < listed.length; shard++) {
    const n = listed === null ? shard : listed[shard]!;
    const r = await outcome(ctx.client.shardStatus(n, ctx.signal));
    if ('ok' in r) shards.push(r.ok);
    else if (listed === null && shard > 0 && r.error instanceof QimInvalidInputError) break;
    else return { shards, error: { shard: n, error: r.error } };
  }
  return { shards, error: null };
}

function shardNumber(s: string): number {
  if (!/^(0|[1-9][0-9]{0,4})$/.test(s)) throw new UsageError(`--shard must be a shard number, got ${JSON.stringify(s)}`);
  return Number(s);
}

/** `qim status`: readiness of both services, then each mailbox shard's frontier and lag. Exit 0 only when all is well. */
export async function statusCommand(ctx: CommandContext): Promise<number> {
  const o = ctx.line.options;
  allowOnly('status', o, ['shard', 'shards']);
  if (ctx.args.length > 0) throw new UsageError('status takes no arguments');
  const count = intOption(o, 'shards');
  const listed = o.shard?.map(shardNumber) ?? (count === undefined ? null : Array.from({ length: count }, (_, i) => i));
  const [writer, mailbox] = await Promise.all([outcome(ctx.client.readiness('writer', ctx.signal)), outcome(ctx.client.readiness('mailbox', ctx.signal))]);
  const reachable = !('error' in mailbox && mailbox.error instanceof QimTransportError);
  const { shards, error } = reachable ? await shardStatuses(ctx, listed) : { shards: [], error: null };
  const healthy = 'ok' in writer && writer.ok.ready && 'ok' in mailbox && mailbox.ok.ready && error === null && shards.every((s) => s.stall === null);
  if (ctx.json) {
    const view = (r: Outcome<Readiness>) => ('ok' in r ? r.ok : { error: errorJson(r.error) });
    const shardViews = shards.map(({ raw: _raw, ...s }) => s);
    ctx.io.out(
      jsonLine({
        healthy,
        writer: view(writer),
        mailbox: view(mailbox),
        shards: shardViews,
        shardError: error && { shard: error.shard, ...errorJson(error.error) },
      }),
    );
  } else {
    ctx.io.out(readinessLine('writer', writer));
    ctx.io.out(readinessLine('mailbox', mailbox));
    for (const s of shards) ctx.io.out(shardLine(s));
    if (error) ctx.io.out(`shard ${error.shard}  ${error.error.code}: ${error.error.message}`);
  }
  return healthy ? 0 : 1;
}
