import { InvalidInputError, InvariantViolationError, StoreError, UnavailableError } from '@qim/store-core';
import type { Cluster, Redis } from 'ioredis';
import { LUA_SCRIPTS } from '../generated/lua-scripts';
import type { LuaScriptName } from '../generated/lua-scripts';
import { EncodedEvalshaSender, encodeCommand, encodeEvalsha } from './encoded-evalsha';
import { RedisKeys } from '../keys/redis-keys';
import { NO_REPLICA_ACKS, ReplicaFence, awaitReplicas, checkReplicaAcks } from './replica-acks';
import type { ReplicaAcks } from './replica-acks';
import { BATCHABLE_SCRIPTS, ScriptBatcher, batchAnswers, commitBatchCall } from './script-batch';
import type { BatchAnswer } from './script-batch';

export type ScriptArg = string | Buffer;

/** One script invocation, built by a pure argument builder. */
export interface ScriptCall {
  readonly script: LuaScriptName;
  readonly keys: readonly string[];
  readonly args: readonly ScriptArg[];
}

type BufferCommand = (...args: ScriptArg[]) => Promise<unknown>;

/**
 * Registers every embedded script with `defineCommand` (ioredis sends EVALSHA and falls back to
 * EVAL on NOSCRIPT, e.g. after a server restart). Idempotent per client.
 */
export function registerScripts(redis: Redis | Cluster): void {
  const target = redis as unknown as Record<string, unknown>;
  for (const s of Object.values(LUA_SCRIPTS)) {
    if (typeof target[s.name] !== 'function') redis.defineCommand(s.name, { numberOfKeys: s.numberOfKeys ?? undefined, lua: s.lua });
  }
}

function checkArity(call: ScriptCall): void {
  const expected = LUA_SCRIPTS[call.script].numberOfKeys;
  if (expected !== null && call.keys.length !== expected) {
    throw new InvariantViolationError(`${call.script}: ${call.keys.length} keys given, script declares ${expected}`);
  }
}

/**
 * Driver errors become `UnavailableError` (safe to retry); domain errors pass through. A command
 * that timed out (`connectRedis`'s `commandTimeoutMs`, given as `timeoutMs` for the message) is
 * `UnavailableError` too: its outcome is unknown, the caller retries the idempotent step as it is.
 */
export function wrapDriverError(e: unknown, what: string, timeoutMs?: number): StoreError {
  if (e instanceof StoreError) return e;
  const message = e instanceof Error ? e.message : String(e);
  // A call over keys of two cluster slots is a bug of the caller that no retry mends: refused by the
  // node (CROSSSLOT) or, with auto-pipelining, by the driver before it is sent.
  if (/^CROSSSLOT\b/.test(message) || /keys in a pipeline command should belong to the same slot/.test(message)) {
    return new InvariantViolationError(`${what}: keys of two cluster slots in one call (CROSSSLOT): ${message}`, { cause: e });
  }
  if (/^(ERR|WRONGTYPE|NOSCRIPT)\b/.test(message) || /script/i.test(message)) {
    return new InvariantViolationError(`${what}: redis refused the command: ${message}`, { cause: e });
  }
  if (message === 'Command timed out') {
    const bound = timeoutMs === undefined ? 'the command timeout' : `${timeoutMs} ms`;
    return new UnavailableError(`${what}: redis did not answer within ${bound} (it may still run the command; retry the step as it is)`, { cause: e });
  }
  return new UnavailableError(`${what}: redis unavailable: ${message}`, { cause: e });
}

/**
 * The stores' only path to Redis: runs scripts and plain commands, counts reads and writes
 * (the contract harness checks that a refused history read sent nothing), and maps driver errors.
 */
export class RedisIo {
  private readCount = 0;
  private writeCount = 0;
  /** The lean EVALSHA path of a standalone client (null on a Cluster or with a key prefix). */
  private readonly encoded: EncodedEvalshaSender | null;
  /** Group commit (ADR-0039): one turn's commit-path script calls in one `commit-batch` EVALSHA; null when off. */
  private readonly batcher: ScriptBatcher | null;

  /** How the durable steps wait for replicas (`replicated`). */
  readonly replicaAcks: ReplicaAcks;
  /** The fence keys the WAITs are fenced with (null with replica acks off). */
  private readonly fence: ReplicaFence | null;

  /**
   * `groupCommit`: the commit-path scripts (`BATCHABLE_SCRIPTS`) made in one event-loop turn go to
   * Redis as `commit-batch` calls of up to `BATCH_FLUSH_CALLS` (ADR-0039, ADR-0044), each call
   * answered on its own. Only on a standalone client without a key prefix (the batch spans hash
   * tags); elsewhere each call goes on its own, as without it.
   * `replicaAcks`: how the durable steps wait for replicas (ADR-0038; none by default); with
   * `min` ≥ 1 the store's `namespace` is required, its fence keys live there.
   */
  constructor(
    readonly redis: Redis | Cluster,
    options: { readonly groupCommit?: boolean; readonly replicaAcks?: ReplicaAcks; readonly namespace?: string } = {},
  ) {
    this.replicaAcks = checkReplicaAcks(options.replicaAcks ?? NO_REPLICA_ACKS);
    if (this.replicaAcks.min > 0 && options.namespace === undefined)
      throw new InvalidInputError('replica acks need the store namespace (the WAIT fence key lives in it)');
    this.fence = this.replicaAcks.min > 0 ? new ReplicaFence(new RedisKeys(options.namespace!)) : null;
    registerScripts(redis);
    this.encoded = EncodedEvalshaSender.usableOn(redis) ? new EncodedEvalshaSender(redis) : null;
    this.batcher =
      options.groupCommit === true && this.encoded !== null
        ? new ScriptBatcher(
            (calls) => this.sendBatch(calls),
            (e, call) => this.wrap(e, call.script),
          )
        : null;
  }

  /** `wrapDriverError` naming this client's command timeout. */
  private wrap(e: unknown, what: string): StoreError {
    const options = (this.redis as { options?: { commandTimeout?: number; redisOptions?: { commandTimeout?: number } } }).options;
    return wrapDriverError(e, what, options?.commandTimeout ?? options?.redisOptions?.commandTimeout);
  }

  get reads(): number {
    return this.readCount;
  }

  get writes(): number {
    return this.writeCount;
  }

  private count(kind: 'read' | 'write', n = 1): void {
    if (kind === 'read') this.readCount += n;
    else this.writeCount += n;
  }

  /**
   * After durable writes: waits until `replicaAcks.min` replicas of each primary holding `keys`
   * ('all': every primary) have everything that primary ran so far, whichever connection wrote it
   * (a fenced WAIT, `awaitReplicas`); nothing to do when `min` is 0. Fewer in time → `UnavailableError`.
   */
  replicated(keys: readonly string[] | 'all', what: string): Promise<void> {
    if (this.fence === null) return Promise.resolve();
    return awaitReplicas(this.redis, this.replicaAcks, keys, what, this.fence);
  }

  /**
   * Before a write on `anchor`'s primary that vouches for writes on `keys` (a page's frontier for
   * its entries, ADR-0038): waits as `replicated` does on the primaries of `keys` other than the
   * anchor's. On a cluster those are other replication streams — without it the vouching write
   * could reach a replica while the writes it vouches for do not, and a promoted replica would then
   * show a frontier above entries it lacks. The anchor's own primary replicates in order: no wait
   * there, and none on a standalone client.
   */
  replicatedBefore(keys: readonly string[], anchor: string, what: string): Promise<void> {
    if (this.fence === null || keys.length === 0) return Promise.resolve();
    return awaitReplicas(this.redis, this.replicaAcks, keys, what, this.fence, anchor);
  }

  /**
   * Runs one script with Buffer replies: pre-encoded EVALSHA on a standalone client, and the
   * driver's script command (EVALSHA, EVAL on NOSCRIPT) when the server does not know the script
   * (restarted) or on a Cluster.
   */
  async script(call: ScriptCall, kind: 'read' | 'write'): Promise<unknown> {
    checkArity(call);
    this.count(kind);
    if (this.batcher !== null && BATCHABLE_SCRIPTS.has(call.script)) return this.batcher.add(call);
    return this.send(call);
  }

  /**
   * One turn's batchable calls: a lone call as itself, several as one `commit-batch` call (the
   * driver's script command, which loads it with EVAL, when the server does not know it).
   */
  private async sendBatch(calls: readonly ScriptCall[]): Promise<BatchAnswer[]> {
    if (calls.length === 1) return [{ ok: true, reply: await this.send(calls[0]!, false) }];
    const batch = commitBatchCall(calls);
    let raw: unknown;
    try {
      raw = await this.encoded!.send(encodeEvalsha(batch.script, batch.keys, batch.args), 'evalsha', false);
    } catch (e) {
      if (!(e instanceof Error && e.message.startsWith('NOSCRIPT'))) throw e;
      const fn = (this.redis as unknown as Record<string, BufferCommand>)[`${batch.script}Buffer`]!;
      raw = await fn.apply(this.redis, [String(batch.keys.length), ...batch.keys, ...batch.args]);
    }
    const answers = batchAnswers(raw, calls.length);
    if (answers === null) throw new InvariantViolationError(`commit-batch of ${calls.length} calls answered a reply of another shape`);
    return answers;
  }

  /** One checked and counted call: pre-encoded when possible, the driver's script command otherwise. */
  private async send(call: ScriptCall, cork = true): Promise<unknown> {
    if (this.encoded !== null) {
      try {
        return await this.encoded.send(encodeEvalsha(call.script, call.keys, call.args), 'evalsha', cork);
      } catch (e) {
        // NOSCRIPT: not run; the driver's path below loads it with EVAL.
        if (!(e instanceof Error && e.message.startsWith('NOSCRIPT'))) throw this.wrap(e, call.script);
      }
    }
    const fn = (this.redis as unknown as Record<string, BufferCommand>)[`${call.script}Buffer`];
    if (fn === undefined) throw new InvariantViolationError(`${call.script} is not registered`);
    try {
      return await fn.apply(this.redis, [...call.keys, ...call.args]);
    } catch (e) {
      throw this.wrap(e, call.script);
    }
  }

  /**
   * Runs several scripts concurrently; replies in order. Each call is sent on its own (no
   * cross-slot MULTI/pipeline object), so calls on different hash tags stay valid on a cluster;
   * with ioredis auto-pipelining (`connectRedis` default) one tick's calls share one socket write.
   */
  async scripts(calls: readonly ScriptCall[], kind: 'read' | 'write'): Promise<unknown[]> {
    return Promise.all(calls.map((call) => this.script(call, kind)));
  }

  /**
   * Runs several scripts as one socket write; replies in order, a refused call rejects the batch
   * once every reply is in. A standalone client sends them as pre-encoded EVALSHA (corked into one
   * write; a NOSCRIPT call alone goes again through the driver, with EVAL): the driver's pipeline
   * re-encoded every argument of every call, the bulk of the client CPU of a page of many small
   * append calls. With a key prefix, one explicit driver pipeline (it adds the prefix). A Cluster
   * client falls back to `scripts` (a pipeline object must stay on one node; its calls on different
   * tags are then sent one by one and coalesced by auto-pipelining).
   */
  async scriptsPipelined(calls: readonly ScriptCall[], kind: 'read' | 'write'): Promise<unknown[]> {
    if ((this.redis as { isCluster?: boolean }).isCluster === true) return this.scripts(calls, kind);
    for (const call of calls) checkArity(call);
    this.count(kind, calls.length);
    if (this.encoded !== null) {
      const settled = await Promise.allSettled(calls.map((call) => this.send(call)));
      return settled.map((s) => {
        if (s.status === 'rejected') throw s.reason;
        return s.value;
      });
    }
    const pipeline = this.redis.pipeline() as unknown as Record<string, BufferCommand>;
    for (const call of calls) {
      const fn = pipeline[`${call.script}Buffer`];
      if (fn === undefined) throw new InvariantViolationError(`${call.script} is not registered`);
      fn.apply(pipeline, [...call.keys, ...call.args]);
    }
    let results: [Error | null, unknown][] | null;
    try {
      results = await (pipeline as unknown as { exec(): Promise<[Error | null, unknown][] | null> }).exec();
    } catch (e) {
      throw this.wrap(e, calls[0]?.script ?? 'pipeline');
    }
    if (results === null || results.length !== calls.length)
      throw new UnavailableError(`pipeline of ${calls.length} scripts answered ${results?.length ?? 'nothing'}`);
    return results.map(([err, value], i) => {
      if (err !== null) throw this.wrap(err, calls[i]!.script);
      return value;
    });
  }

  /**
   * Plain commands (each `[command, ...args]`); Buffer replies in order, a refused command rejects
   * the batch once every reply is in. On a standalone client they go pre-encoded and corked into one
   * socket write, like `scriptsPipelined`: the driver's auto-pipelining builds a pipeline object per
   * event-loop turn (a copy of every command and script method), which cost the writer's membership
   * read 80–100 µs of client CPU against 35–44 pre-encoded (`tools/bench/run.sh redis-membership`).
   * On a Cluster (or with a key prefix) through the driver, each command on its own so every key
   * finds its node. Names are vetted before anything is sent.
   */
  async commands(cmds: readonly (readonly [string, ...ScriptArg[]])[], kind: 'read' | 'write'): Promise<unknown[]> {
    const driverFns = cmds.map(([name]) => this.driverCommand(name));
    this.count(kind, cmds.length);
    const encoded = this.encoded;
    const settled = await Promise.allSettled(
      cmds.map((c, i) => (encoded !== null ? encoded.send(encodeCommand(c), c[0].toLowerCase()) : driverFns[i]!.apply(this.redis, c.slice(1)))),
    );
    return settled.map((s, i) => {
      if (s.status === 'rejected') throw this.wrap(s.reason, cmds[i]![0]);
      return s.value;
    });
  }

  /** `commands` under the name the mailbox appender's batched writes use (counted apart in its specs). */
  async commandsPipelined(cmds: readonly (readonly [string, ...ScriptArg[]])[], kind: 'read' | 'write'): Promise<unknown[]> {
    return this.commands(cmds, kind);
  }

  /**
   * The driver's `<command>Buffer` method, which also vets the name before anything is sent (not
   * `callBuffer`: ioredis 5 drops the command name of `call`/`callBuffer` when auto-pipelining is on).
   */
  private driverCommand(name: string): BufferCommand {
    const fn = (this.redis as unknown as Record<string, BufferCommand>)[`${name.toLowerCase()}Buffer`];
    if (fn === undefined) throw new InvariantViolationError(`unknown redis command ${name}`);
    return fn;
  }
}
