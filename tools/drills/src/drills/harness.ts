import type { CheckResult, Fault } from '../checker/checker';
import { runCheck } from '../checker/checker';
import { ClientPool } from '../checker/clients';
import { makePopulation } from '../checker/population';
import { formatReport } from '../checker/report';
import { DRILL_TOKEN, Deployment } from '../stack/deployment';
import type { DrillContext } from './drill';
import type { Shape } from './sizes';

export interface Topology {
  readonly writers: number;
  readonly mailboxes: number;
}

/** Starts a deployment with `env` overrides and the given number of writer and mailbox instances. */
export async function deploy(ctx: DrillContext, env: Record<string, string>, topo: Topology): Promise<Deployment> {
  const d = new Deployment(ctx.bundles, env);
  ctx.log(`deployment ${d.run}: logs in .infra/drills/${d.run}/`);
  await d.createTopics();
  for (let i = 1; i <= topo.writers; i += 1) await d.add('writer', `writer-${i}`);
  for (let i = 1; i <= topo.mailboxes; i += 1) await d.add('mailbox', `mailbox-${i}`);
  ctx.log(`started ${topo.writers} writer(s), ${topo.mailboxes} mailbox(es)`);
  return d;
}

/** The client pool over every instance of the deployment. */
export function poolOf(d: Deployment, tenantId: string): ClientPool {
  const ep = (kind: 'writer' | 'mailbox') => d.of(kind).map((i) => ({ name: i.name, url: i.url }));
  return new ClientPool({ writers: ep('writer'), mailboxes: ep('mailbox'), token: DRILL_TOKEN }, tenantId);
}

/**
 * Runs the checker's load on `d` with `fault`, prints the report (with the drill's `extra` lines)
 * and returns the result; PASS needs the invariants and the drill's own `extraPass` criterion.
 */
export async function checkWith(
  ctx: DrillContext,
  drill: string,
  d: Deployment,
  shape: Shape,
  fault: Fault | null,
  extra: (r: CheckResult) => string[] = () => [],
  extraPass: (r: CheckResult) => boolean = () => true,
): Promise<{ result: CheckResult; pass: boolean }> {
  const shards = d.env['QIM_MAILBOX_SHARDS'];
  const pop = makePopulation(shape.conversations, shape.stableUsers, undefined, shards === undefined ? undefined : Number(shards));
  const result = await runCheck(poolOf(d, pop.tenantId), pop, shape.check, fault);
  const ok = extraPass(result);
  const lines = extra(result);
  const pass = result.verdict.pass && ok;
  const text = formatReport(drill, { ...result, verdict: { ...result.verdict, pass } }, lines);
  process.stdout.write(`${text}\n`);
  return { result, pass };
}

/** A random delay in [min, max) ms. */
export const jitter = (min: number, max: number): number => min + Math.floor(Math.random() * (max - min));
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
