/**
 * The design floor of a Redis commit, for `redis-commit` to run beside the store's commit: the
 * durable writes every implementation of the commit contract has to make, in the fewest round trips
 * the crash-safe order allows, and nothing else. It is not a commit (no reads, no checks, no
 * replays): it bounds from above what any implementation on this server and client could reach,
 * so "store ÷ floor" says how much of the gap to raw `EVALSHA` is ours to close.
 *
 * Per commit, each script on one hash tag like the store's (Redis Cluster-safe), sent as pre-encoded
 * `EVALSHA` corked per event-loop turn like the store's:
 * 1. before the publish, in one round trip (pipelined, like the store's reserve):
 *    - `claim` (commit tag): the idempotency claim (HSET identity, state, request) and its recovery
 *      index member (ZADD) — item 1 wants the key claimed before a seq is spent;
 *    - `seq-record` (conversation tag): INCR the seq, SET the record under it, ZADD its history index
 *      row — merged into one script, which the store cannot do (the record bytes are encoded by the
 *      caller once the seq is known), so the floor is generous here;
 * 2. after the publish: `commit` (commit tag): COMMITTED with the intent (HSET), the recovery member
 *    removed (ZREM).
 * 7 commands inside 3 scripts, 2 round trips. Left out, each of which the store needs: the reads that
 * make a send idempotent (the live commit, the seq claim), the seq claim itself (one seq per commit
 * key across processes), the aux-GC index and the one-time physical expiries (retention), the
 * RECORDED step, and every equality check that makes stored damage fail closed.
 */

type Arg = string | Buffer;

export const FLOOR_SCRIPTS = {
  claim: "redis.call('HSET', KEYS[1], 'identity', ARGV[1], 'state', 'CLAIMED', 'request', ARGV[2]) redis.call('ZADD', KEYS[2], ARGV[3], ARGV[4]) return {0}",
  seqRecord:
    "local n = redis.call('INCR', KEYS[1]) redis.call('SET', KEYS[2] .. n, ARGV[1]) " +
    "redis.call('ZADD', KEYS[3], 0, string.format('%016x', n) .. ARGV[2]) return {0, n}",
  commit: "redis.call('HSET', KEYS[1], 'state', 'COMMITTED', 'intent', ARGV[1]) redis.call('ZREM', KEYS[2], ARGV[2]) return {0}",
} as const;

export type FloorScript = keyof typeof FLOOR_SCRIPTS;

export interface FloorCall {
  readonly script: FloorScript;
  readonly keys: readonly string[];
  readonly args: readonly Arg[];
}

/** The calls of floor commit `n`: two before the publish (one round trip), one after. */
export function floorCommit(
  namespace: string,
  n: number,
  identity: Buffer,
  body: Buffer,
  nowMs: number,
): { readonly beforePublish: readonly [FloorCall, FloorCall]; readonly afterPublish: FloorCall } {
  const shard = `${namespace}:{fcs:${n % 64}}:`;
  const conv = `${namespace}:{fcv:${n % 256}}:`;
  const member = n.toString(16).padStart(32, '0');
  return {
    beforePublish: [
      { script: 'claim', keys: [`${shard}commit:${member}`, `${shard}recovery`], args: [identity, body, String(nowMs), member] },
      { script: 'seqRecord', keys: [`${conv}seq`, `${conv}rec:`, `${conv}index`], args: [body, member] },
    ],
    afterPublish: { script: 'commit', keys: [`${shard}commit:${member}`, `${shard}recovery`], args: [body, member] },
  };
}

/** The `{…}` hash tag of a key (Redis Cluster's rule: the first `{` and the next `}`, non-empty), or the whole key. */
export function hashTagOf(key: string): string {
  const open = key.indexOf('{');
  if (open < 0) return key;
  const close = key.indexOf('}', open + 1);
  return close > open + 1 ? key.slice(open + 1, close) : key;
}

/** RESP bytes of `EVALSHA sha numkeys keys… args…` (binary-safe bulk strings). */
export function encodeFloorCall(sha: string, call: FloorCall): Buffer {
  const parts: Buffer[] = [];
  const all: Arg[] = ['evalsha', sha, String(call.keys.length), ...call.keys, ...call.args];
  parts.push(Buffer.from(`*${all.length}\r\n`));
  for (const a of all) {
    const b = typeof a === 'string' ? Buffer.from(a) : a;
    parts.push(Buffer.from(`$${b.length}\r\n`), b, Buffer.from('\r\n'));
  }
  return Buffer.concat(parts);
}
