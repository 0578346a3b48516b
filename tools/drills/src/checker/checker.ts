import type { Id128 } from '@qim/client';
import type { ClientPool } from './clients';
import { sleep } from './errors';
import type { Verdict } from './invariants';
import { checkInvariants } from './invariants';
import type { LoadOptions } from './load';
import { Load } from './load';
import type { MailboxObservation, Observations, SeenMessage } from './model';
import { messageKey } from './model';
import { readHistory, readKeys, readMailbox } from './observe';
import type { Population } from './population';
import { conversationsOf } from './population';

function percentiles(values: readonly number[]): { p50: number; p99: number; max: number } {
  const v = [...values].sort((a, b) => a - b);
  const at = (q: number): number => (v.length === 0 ? 0 : v[Math.min(v.length - 1, Math.floor(q * v.length))]!);
  return { p50: at(0.5), p99: at(0.99), max: v.at(-1) ?? 0 };
}

/** What a fault does while the load runs: it waits for its moment (`load.at(f)`) itself. */
export type Fault = (load: Load) => Promise<void>;

export interface CheckCounts {
  readonly attempted: number;
  readonly acknowledged: number;
  readonly failedClean: number;
  readonly refused: number;
  readonly duplicateSends: number;
  readonly conflictProbes: number;
  readonly membershipFailures: number;
  readonly deviceResyncs: number;
  /** Times a device's sync failed after the client's own retries (it then resumed from its cursor). */
  readonly deviceFailures: number;
  /** Regular sends' time to their first answer: p50, p99, max (ms); a fault that bites shows here. */
  readonly sendMs: { readonly p50: number; readonly p99: number; readonly max: number };
  /** Error codes the sends saw after the client's own retries were exhausted (code → count). */
  readonly surfacedErrors: Readonly<Record<string, number>>;
  readonly loadMs: number;
  readonly quiescenceMs: number;
}

export interface CheckResult {
  readonly counts: CheckCounts;
  readonly verdict: Verdict;
}

export interface CheckOptions {
  readonly load: LoadOptions;
  /** Bound of the wait for every stable mailbox to hold every stored message (ms). */
  readonly quiescenceMs: number;
  readonly pagedLimit: number;
  readonly largeLimit: number;
}

async function readAllHistory(pool: ClientPool, pop: Population): Promise<Map<string, SeenMessage[]>> {
  const out = new Map<string, SeenMessage[]>();
  for (const c of pop.conversations) out.set(c, await readHistory(pool.client(pop.stableMembers.get(c)![0]!), c));
  return out;
}

/** Waits until every stable member's mailbox holds every stored message of its conversations (bounded). */
async function quiesce(pool: ClientPool, pop: Population, boundMs: number, largeLimit: number): Promise<boolean> {
  const deadline = Date.now() + boundMs;
  while (Date.now() < deadline) {
    const history = await readAllHistory(pool, pop);
    let complete = true;
    for (const u of pop.stableUsers) {
      const read = await readMailbox(pool.client(u), largeLimit);
      if (read.kind === 'expired') continue;
      const have = readKeys(read);
      const convs = conversationsOf(pop, u);
      const want = [...history.values()].flat().filter((m) => convs.has(m.conversationId));
      if (!want.every((m) => have.has(messageKey(m.conversationId, m.seq)))) complete = false;
    }
    if (complete) return true;
    await sleep(1_000);
  }
  return false;
}

/**
 * The consistency checker: runs the load with `fault` injected, repeats what failed, waits for
 * quiescence, reads everything back through the API and checks the invariants.
 */
export async function runCheck(pool: ClientPool, pop: Population, opts: CheckOptions, fault: Fault | null): Promise<CheckResult> {
  const load = new Load(pop, pool, opts.load);
  await load.setUp();
  const t0 = Date.now();
  await Promise.all([load.run(), fault ? fault(load) : Promise.resolve()]);
  const loadMs = Date.now() - t0;
  const acknowledged = load.sends.filter((s) => s.outcome === 'acked').length;
  const failedClean = load.sends.filter((s) => s.outcome === 'failed-clean').length;
  await load.resolve();
  const t1 = Date.now();
  await quiesce(pool, pop, opts.quiescenceMs, opts.largeLimit);
  const quiescenceMs = Date.now() - t1;
  const devices = await load.finishDevices();
  const history = await readAllHistory(pool, pop);
  const users: { id: Id128; stable: boolean }[] = [
    ...pop.stableUsers.map((id) => ({ id, stable: true })),
    ...[...pop.churnMember.values()].map((id) => ({ id, stable: false })),
  ];
  const mailboxes: MailboxObservation[] = [];
  for (const u of users) {
    const client = pool.client(u.id);
    mailboxes.push({
      userId: u.id,
      stable: u.stable,
      conversations: conversationsOf(pop, u.id),
      paged: await readMailbox(client, opts.pagedLimit),
      large: await readMailbox(client, opts.largeLimit),
    });
  }
  const obs: Observations = { sends: load.sends, probes: load.probes, history, mailboxes, devices };
  const counts: CheckCounts = {
    attempted: load.sends.length,
    acknowledged,
    failedClean,
    refused: load.sends.filter((s) => s.outcome === 'refused').length,
    duplicateSends: load.sends.reduce((n, s) => n + Math.max(0, s.answers.length - 1), 0),
    conflictProbes: load.probes.length,
    membershipFailures: load.membershipFailures,
    deviceResyncs: devices.reduce((n, d) => n + d.resyncs.length, 0),
    deviceFailures: load.devices.reduce((n, d) => n + d.failures, 0),
    sendMs: percentiles(load.latenciesMs),
    surfacedErrors: load.sends.flatMap((s) => s.errors).reduce<Record<string, number>>((acc, e) => ({ ...acc, [e]: (acc[e] ?? 0) + 1 }), {}),
    loadMs,
    quiescenceMs,
  };
  return { counts, verdict: checkInvariants(obs) };
}
