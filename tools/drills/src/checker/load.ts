import { QimConflictError, newId128 } from '@qim/client';
import type { Id128, RetryPolicy } from '@qim/client';
import type { ClientPool } from './clients';
import { SyncingDevice } from './device';
import { codeOf, isRetryable, sleep } from './errors';
import type { ConflictProbe, DeviceObservation, SendRecord } from './model';
import type { Population } from './population';
import type { SendRoute } from './sender';
import { sendUntilAnswered } from './sender';

export interface LoadOptions {
  /** Sends in all (each with a fresh client message id). */
  readonly sends: number;
  /** Sends in flight at once. */
  readonly concurrency: number;
  /** Share of ACKed sends repeated with the same id and body (raced on two writers when there are two). */
  readonly duplicateRate: number;
  /** Share of ACKed sends repeated with the same id and ANOTHER body (409 expected). */
  readonly conflictRate: number;
  /** Add/send/remove/send-refused rounds per conversation's changing member. */
  readonly churnRounds: number;
  /** Rounds of the same send before it counts as failed (each round is the client's own retries). */
  readonly sendRounds: number;
  /** Pause between two sends of one worker (ms). */
  readonly pauseMs: number;
}

/** Codes of a send that got no answer (the fault, not the request): such a probe is repeated after the load. */
const RETRYABLE_CODES = new Set(['NO_ANSWER', 'UNAVAILABLE', 'TRANSPORT', 'TIMEOUT']);

const random = (n: number): number => Math.floor(Math.random() * n);

/**
 * Drives the load of a drill through the HTTP API: sends (with retries and duplicates), membership
 * changes with refused sends, and one long-polling device per stable user. Records every answer.
 */
export class Load {
  readonly sends: SendRecord[] = [];
  readonly probes: ConflictProbe[] = [];
  readonly devices: SyncingDevice[] = [];
  private started = 0;
  private readonly waiters: { fraction: number; resolve: () => void }[] = [];
  membershipFailures = 0;
  /** Time from a regular send's first attempt to its first answer or final failure (ms), in order. */
  readonly latenciesMs: number[] = [];

  constructor(
    private readonly pop: Population,
    private readonly pool: ClientPool,
    private readonly opts: LoadOptions,
  ) {}

  private routes(user: Id128, first: number): SendRoute[] {
    return Array.from({ length: this.pool.writerCount }, (_, k) => ({ client: this.pool.client(user, first + k), via: this.pool.writerName(first + k) }));
  }

  private record(conversationId: Id128, senderId: Id128, expectForbidden: boolean): SendRecord {
    const rec: SendRecord = {
      conversationId,
      senderId,
      clientMessageId: newId128(),
      body: `drill ${this.sends.length} ${newId128().slice(0, 8)}`,
      expectForbidden,
      outcome: 'failed-clean',
      answers: [],
      errors: [],
      resolution: [],
    };
    this.sends.push(rec);
    return rec;
  }

  /** The population's conversations (a fault may probe each of them). */
  get conversations(): readonly Id128[] {
    return this.pop.conversations;
  }

  /** Resolves once `fraction` of the sends have started (a fault's trigger). */
  at(fraction: number): Promise<void> {
    if (this.started >= fraction * this.opts.sends) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ fraction, resolve }));
  }

  private tick(): void {
    this.started += 1;
    for (const w of [...this.waiters]) {
      if (this.started >= w.fraction * this.opts.sends) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  }

  /** Membership through the API first (all before any send), then devices start. */
  async setUp(): Promise<void> {
    for (const [conv, members] of this.pop.stableMembers) await this.membership(() => this.pool.client(members[0]!).addMembers(conv, members));
    for (const u of this.pop.stableUsers) {
      const d = new SyncingDevice(u, true, (attempt) => this.pool.client(u, 0, attempt + this.devices.length));
      this.devices.push(d);
      d.start();
    }
    for (const [, u] of this.pop.churnMember) {
      const d = new SyncingDevice(u, false, (attempt) => this.pool.client(u, 0, attempt + this.devices.length));
      this.devices.push(d);
      d.start();
    }
  }

  private async membership(call: () => Promise<unknown>, rounds = 15): Promise<boolean> {
    for (let round = 0; round < rounds; round += 1) {
      try {
        await call();
        return true;
      } catch (err) {
        if (!isRetryable(err)) throw err;
        await sleep(500 * Math.min(round + 1, 4));
      }
    }
    this.membershipFailures += 1;
    return false;
  }

  private async oneSend(i: number): Promise<void> {
    const conv = this.pop.conversations[random(this.pop.conversations.length)]!;
    const members = this.pop.stableMembers.get(conv)!;
    const sender = members[random(members.length)]!;
    const rec = this.record(conv, sender, false);
    const routes = this.routes(sender, i);
    const t0 = Date.now();
    const race = this.pool.writerCount > 1 && Math.random() < this.opts.duplicateRate;
    const first = race
      ? ((await Promise.all(routes.map((r) => sendUntilAnswered(rec, [r, ...routes], this.opts.sendRounds, rec.answers)))).find((a) => a !== null) ?? null)
      : await sendUntilAnswered(rec, routes, this.opts.sendRounds, rec.answers);
    this.latenciesMs.push(Date.now() - t0);
    if (first === null) return;
    rec.outcome = 'acked';
    if (!race && Math.random() < this.opts.duplicateRate) await sendUntilAnswered(rec, [...routes].reverse(), this.opts.sendRounds, rec.answers);
    if (Math.random() < this.opts.conflictRate) await this.conflictProbe(rec, routes);
  }

  private async conflictProbe(rec: SendRecord, routes: readonly SendRoute[]): Promise<void> {
    const probe: ConflictProbe = {
      conversationId: rec.conversationId,
      clientMessageId: rec.clientMessageId,
      otherBody: `${rec.body} (other)`,
      senderId: rec.senderId,
      code: 'NO_ANSWER',
    };
    this.probes.push(probe);
    await this.repeatProbe(probe, routes, this.opts.sendRounds);
  }

  /** Sends the probe's other body until it is answered (409, accepted, or a non-retryable error), at most `rounds` times. */
  private async repeatProbe(probe: ConflictProbe, routes: readonly SendRoute[], rounds: number): Promise<void> {
    for (let round = 0; round < rounds; round += 1) {
      try {
        await routes[round % routes.length]!.client.send({
          conversationId: probe.conversationId,
          body: probe.otherBody,
          clientMessageId: probe.clientMessageId,
        });
        probe.code = 'ACCEPTED';
        return;
      } catch (err) {
        probe.code = codeOf(err);
        if (err instanceof QimConflictError || !isRetryable(err)) return;
        await sleep(400);
      }
    }
  }

  private async churn(conv: Id128, rounds: number): Promise<void> {
    const user = this.pop.churnMember.get(conv)!;
    const admin = this.pop.stableMembers.get(conv)![0]!;
    for (let r = 0; r < rounds; r += 1) {
      if (!(await this.membership(() => this.pool.client(admin, r).addMembers(conv, [user])))) return;
      const ok = this.record(conv, user, false);
      if ((await sendUntilAnswered(ok, this.routes(user, r), this.opts.sendRounds, ok.answers)) !== null) ok.outcome = 'acked';
      await sleep(this.opts.pauseMs * 3);
      if (!(await this.membership(() => this.pool.client(admin, r).removeMembers(conv, [user])))) return;
      const refused = this.record(conv, user, true);
      const a = await sendUntilAnswered(refused, this.routes(user, r), this.opts.sendRounds, refused.answers);
      refused.outcome = a !== null ? 'accepted-unexpectedly' : refused.errors.at(-1) === 'FORBIDDEN' ? 'refused' : 'failed-clean';
      await sleep(this.opts.pauseMs * 3);
    }
  }

  /**
   * One send by a stable member outside the regular load, through `client` as given (e.g. without
   * retries), recorded like every other send; in `conversationId` when given, else a random one.
   * Returns the code answered (`OK` or the error's) and how long the answer took.
   */
  async probeSend(retry?: Partial<RetryPolicy>, conversationId?: Id128): Promise<{ code: string; ms: number }> {
    const conv = conversationId ?? this.pop.conversations[random(this.pop.conversations.length)]!;
    const sender = this.pop.stableMembers.get(conv)![0]!;
    const rec = this.record(conv, sender, false);
    const t0 = Date.now();
    const a = await sendUntilAnswered(rec, [{ client: this.pool.client(sender, 0, 0, retry), via: this.pool.writerName(0) }], 1, rec.answers);
    if (a !== null) rec.outcome = 'acked';
    return { code: a !== null ? 'OK' : (rec.errors.at(-1) ?? 'UNKNOWN'), ms: Date.now() - t0 };
  }

  /** One sync page of a stable member, through a client with `retry`; the code answered and the time. */
  async probeSync(retry?: Partial<RetryPolicy>): Promise<{ code: string; ms: number }> {
    const user = this.pop.stableUsers[random(this.pop.stableUsers.length)]!;
    const t0 = Date.now();
    try {
      await this.pool.client(user, 0, 0, retry).syncPage({ limit: 10 });
      return { code: 'OK', ms: Date.now() - t0 };
    } catch (err) {
      return { code: codeOf(err), ms: Date.now() - t0 };
    }
  }

  /** Runs every send and the membership rounds; resolves when all of them have an outcome. */
  async run(): Promise<void> {
    let next = 0;
    const worker = async (w: number): Promise<void> => {
      while (next < this.opts.sends) {
        const i = next++;
        this.tick();
        await this.oneSend(i + w);
        if (this.opts.pauseMs > 0) await sleep(this.opts.pauseMs);
      }
    };
    const churners = this.pop.conversations.map((c) => this.churn(c, this.opts.churnRounds));
    await Promise.all([...Array.from({ length: this.opts.concurrency }, (_, w) => worker(w)), ...churners]);
  }

  /** Repeats every send that had no answer (same id, same body) until answered or refused, bounded. */
  async resolve(rounds = 30): Promise<void> {
    const churners = new Set(this.pop.churnMember.values());
    for (const rec of this.sends) {
      if (rec.outcome !== 'failed-clean') continue;
      const a = await sendUntilAnswered(rec, this.routes(rec.senderId, 0), rounds, rec.resolution, 500);
      // A changing member may have been removed since: a 403 now is a clean refusal (checked to have written nothing).
      if (a === null && rec.errors.at(-1) === 'FORBIDDEN' && churners.has(rec.senderId)) rec.outcome = 'refused';
      if (a !== null && rec.expectForbidden) rec.outcome = 'accepted-unexpectedly';
    }
    // A 409 probe that got no answer during the fault (503, transport) is repeated like a failed send:
    // its answer must then be 409 and its other body never stored.
    for (const p of this.probes) {
      if (p.senderId === undefined || ['CONFLICT', 'ACCEPTED'].includes(p.code) || !RETRYABLE_CODES.has(p.code)) continue;
      await this.repeatProbe(p, this.routes(p.senderId, 0), rounds);
    }
  }

  async finishDevices(): Promise<DeviceObservation[]> {
    return Promise.all(this.devices.map((d) => d.finish()));
  }
}
