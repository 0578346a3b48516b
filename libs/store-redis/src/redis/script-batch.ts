import type { LuaScriptName } from '../generated/lua-scripts';
import type { ScriptArg, ScriptCall } from './redis-io';

/** The scripts `commit-batch` embeds: the commit path's calls that may share one EVALSHA (ADR-0039). */
export const BATCHABLE_SCRIPTS: ReadonlySet<LuaScriptName> = new Set<LuaScriptName>([
  'claimCommitV1',
  'claimSeqV1',
  'putRecordV1',
  'markRecordedV1',
  'markOutboxedV1',
  'markPublishedCommittedV1',
  'markCommittedV1',
]);

/**
 * A batch goes as soon as it holds this many calls, without waiting for the turn's end (ADR-0044).
 * When the replies of many commits arrive together, their next calls are made in one long turn; sent
 * only at its end, the server idled while the client worked and then the client while the server
 * did. Sent in batches of this size, the server works on the first while the client is still making
 * the next. Eight calls share one EVALSHA, so the saving of ADR-0039 is mostly kept.
 */
export const BATCH_FLUSH_CALLS = 8;

/** The `commit-batch` call that runs `calls` in order (pure; the script's docblock has the layout). */
export function commitBatchCall(calls: readonly ScriptCall[]): ScriptCall {
  const keys: string[] = [];
  const args: ScriptArg[] = [String(calls.length)];
  for (const c of calls) {
    keys.push(...c.keys);
    args.push(c.script, String(c.keys.length), String(c.args.length), ...c.args);
  }
  return { script: 'commitBatchV1', keys, args };
}

/** One call's answer inside a `commit-batch` reply: its script's reply, or the error it raised. */
export type BatchAnswer = { readonly ok: true; readonly reply: unknown } | { readonly ok: false; readonly message: string };

/** Splits a `commit-batch` reply into one answer per call; a reply of another shape is null. */
export function batchAnswers(raw: unknown, calls: number): BatchAnswer[] | null {
  if (!Array.isArray(raw) || raw.length !== calls) return null;
  return raw.map((r: unknown) => {
    if (Array.isArray(r) && r.length === 2 && (Buffer.isBuffer(r[0]) || typeof r[0] === 'string') && String(r[0]) === 'error') {
      return { ok: false, message: String(r[1]) };
    }
    return { ok: true, reply: r };
  });
}

interface Pending {
  readonly call: ScriptCall;
  readonly resolve: (reply: unknown) => void;
  readonly reject: (e: unknown) => void;
}

/**
 * Collects the batchable script calls of one event-loop turn and hands them to `flush` in the order
 * they were made: every `BATCH_FLUSH_CALLS` calls at once, the rest at the turn's end (setImmediate).
 * `flush` answers each call by its index; a call it does not answer is rejected with its error.
 */
export class ScriptBatcher {
  private queue: Pending[] = [];
  private drainQueued = false;

  constructor(
    private readonly flush: (calls: readonly ScriptCall[]) => Promise<BatchAnswer[]>,
    private readonly onError: (e: unknown, call: ScriptCall) => unknown,
  ) {}

  add(call: ScriptCall): Promise<unknown> {
    return new Promise((resolve, reject) => {
      if (!this.drainQueued) {
        this.drainQueued = true;
        setImmediate(() => {
          this.drainQueued = false;
          this.drain();
        });
      }
      this.queue.push({ call, resolve, reject });
      if (this.queue.length >= BATCH_FLUSH_CALLS) this.drain();
    });
  }

  private drain(): void {
    if (this.queue.length === 0) return;
    const batch = this.queue;
    this.queue = [];
    void this.run(batch);
  }

  private async run(batch: readonly Pending[]): Promise<void> {
    let answers: BatchAnswer[];
    try {
      answers = await this.flush(batch.map((p) => p.call));
    } catch (e) {
      for (const p of batch) p.reject(this.onError(e, p.call));
      return;
    }
    batch.forEach((p, i) => {
      const a = answers[i]!;
      if (a.ok) p.resolve(a.reply);
      else p.reject(this.onError(new Error(a.message), p.call));
    });
  }
}
