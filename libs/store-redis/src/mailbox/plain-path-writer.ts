import { InvariantViolationError } from '@qim/store-core';
import type { RedisIo } from '../redis/redis-io';
import type { MetaCache } from './meta-cache';
import type { PreparedEntry } from './prepared-entry';
import type { UserKeysCache } from './user-keys-cache';
import { plainCommands } from './warm-days';
import type { PlainCommand, WarmDays } from './warm-days';

/** Plain commands per pipeline of the plain path. */
const PLAIN_COMMANDS_PER_PIPELINE = 512;

type Group = readonly PreparedEntry[];

/** One pipeline of plain commands and the groups (whole users) they write. */
export interface PlainBatch {
  readonly commands: PlainCommand[];
  readonly groups: Group[];
}

export interface PlainPathConfig {
  readonly io: RedisIo;
  readonly epoch: number;
  readonly cache: MetaCache;
  readonly userKeys: UserKeysCache;
  readonly warm: WarmDays | null;
}

/**
 * The plain path's writes (ADR-0022 §5, `WarmDays`): warm users' groups as the script's fast-path
 * commands, pipelined, and the check of their premise on the replies.
 */
export class PlainPathWriter {
  constructor(private readonly c: PlainPathConfig) {}

  /** The plain groups' commands, cut into pipelines of at most `PLAIN_COMMANDS_PER_PIPELINE` (a user's stay together). */
  batches(groups: readonly Group[]): PlainBatch[] {
    const out: PlainBatch[] = [];
    let batch: PlainBatch = { commands: [], groups: [] };
    for (const g of groups) {
      const { tenantId, userId, user } = g[0]!;
      batch.commands.push(...plainCommands(this.c.userKeys.user(tenantId, userId, user), this.c.epoch, g));
      batch.groups.push(g);
      if (batch.commands.length >= PLAIN_COMMANDS_PER_PIPELINE) {
        out.push(batch);
        batch = { commands: [], groups: [] };
      }
    }
    if (batch.groups.length > 0) out.push(batch);
    return out;
  }

  /**
   * One pipeline of plain commands; answers the users whose premise broke. Every reply must be an
   * integer. A proof member that turns out new means the user's state is not what this process saw
   * (keys lost or removed behind its back, its meta perhaps with them, which would make a reader
   * take the user as clean and skip the entry): its day index gets its physical expiry (`NX`), the
   * user's cached meta and warm days are forgotten, and the caller sends the user's group through
   * the script again — which registers its day anew — before the page goes on (issue 27 item 3).
   * ioredis resends commands in flight at a lost connection (`autoResendUnfulfilledCommands`, on:
   * turning it off leaves their promises unsettled in ioredis 5): such a resend to a restarted
   * server lands here the same way, and the page's frontier write refuses a server other than the
   * one its first step ran on (`advance-frontier-v2`).
   */
  async send(batch: readonly PlainCommand[]): Promise<ReadonlySet<string>> {
    const replies = await this.c.io.commandsPipelined(
      batch.map((c) => c.command),
      'write',
    );
    const repairs: (readonly [string, ...string[]])[] = [];
    const broken = new Set<string>();
    replies.forEach((r, i) => {
      const { command, user, dayExpiry } = batch[i]!;
      if (typeof r !== 'number') throw new InvariantViolationError(`appendBatch: ${command[0]} answered ${typeof r}, not an integer`);
      if (dayExpiry !== null && r === 1) {
        repairs.push(['PEXPIREAT', dayExpiry[0], dayExpiry[1], 'NX']);
        this.c.warm?.forget(user);
        this.c.cache.forget(user);
        broken.add(user);
      }
    });
    if (repairs.length > 0) await this.c.io.commandsPipelined(repairs, 'write');
    return broken;
  }
}
