import { ConfigError } from '@qim/service-kit';
import { parseServiceEnv } from '@qim/backends';
import { mailboxEnvSchema, resetMailboxOffsets } from '@qim/mailbox-runtime';
import type { MailboxConfig, ShardOffsetReset } from '@qim/mailbox-runtime';
import type { Output } from './output';
import { messageOf } from './output';

/** Parses `[--shard N]`: the shard, null for every shard, or a usage error message. */
export function parseShardArgs(args: readonly string[]): number | null | string {
  if (args.length === 0) return null;
  if (args.length === 2 && args[0] === '--shard' && /^\d{1,6}$/.test(args[1]!)) return Number(args[1]);
  return `reset-mailbox-offsets takes [--shard N], got: ${args.join(' ')}`;
}

const str = (v: bigint | null): string => (v === null ? 'none' : v.toString());

function line(r: ShardOffsetReset): string {
  const at = `shard ${r.shard}: frontier ${str(r.frontier)}, committed ${str(r.committed)}, partition ${r.low}…${r.end}`;
  if (r.action === 'moved') return `${at} → moved the group to ${r.to}`;
  if (r.action === 'unchanged') return `${at} → unchanged (not ahead of the store)`;
  return `${at} → refused: ${r.reason}`;
}

/**
 * `reset-mailbox-offsets [--shard N]`: with the mailbox's environment (backend, epoch, shards, topics,
 * client id), moves the shard group's committed offset of each shard that is ahead of the store
 * back to the store's frontier + 1 (every mailbox process must be stopped: Kafka refuses otherwise).
 * 0 when every shard is now consistent; 1 when a shard needs a new epoch or the move failed;
 * 2 on usage or configuration errors. Writes nothing but Kafka offsets.
 */
export async function runResetMailboxOffsets(args: readonly string[], io: Output): Promise<number> {
  const shard = parseShardArgs(args);
  if (typeof shard === 'string') {
    io.err(shard);
    return 2;
  }
  let config: MailboxConfig;
  try {
    config = parseServiceEnv(mailboxEnvSchema, process.env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    io.err('invalid configuration (nothing was contacted or altered):');
    for (const issue of err.issues) io.err(`  ${issue.variable}: ${issue.message}`);
    return 2;
  }
  let results: ShardOffsetReset[];
  try {
    results = await resetMailboxOffsets(config, shard);
  } catch (err) {
    io.err(`reset-mailbox-offsets failed (no offset moved): ${messageOf(err)}`);
    return 1;
  }
  io.out(`group ${config.shardGroup}, topic ${config.kafka.dispatchTopic}, epoch ${config.epoch}`);
  for (const r of results) (r.action === 'refused' ? io.err : io.out)(line(r));
  if (results.some((r) => r.action === 'moved' && r.committed === null)) {
    io.out('note: a shard without a committed offset was moved to its frontier + 1; if its topic was recreated, start a new epoch instead');
  }
  return results.some((r) => r.action === 'refused') ? 1 : 0;
}
