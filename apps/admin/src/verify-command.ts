import { verifyScylla } from '@qim/backends';
import type { ScyllaEnvConfig } from '@qim/backends';
import type { Output } from './output';
import { messageOf } from './output';
import { checkLines, stepLine } from './report-lines';

/**
 * `verify`: readiness only (never creates or alters anything). Prints each check and every
 * problem; 0 only when ready, 1 when not ready or the cluster cannot be reached.
 */
export async function runVerify(config: ScyllaEnvConfig, io: Output): Promise<number> {
  let report;
  try {
    report = await verifyScylla(config.scylla, (step) => io.out(stepLine(step)));
  } catch (err) {
    io.err(`verify failed: ${messageOf(err)}`);
    return 1;
  }
  for (const check of report.checks) for (const line of checkLines(check)) io.out(line);
  if (report.ready) {
    io.out(`ready (${report.dialect})`);
    return 0;
  }
  io.err(`not ready: ${report.problems.length} problem(s)`);
  for (const p of report.problems) io.err(`  ${p}`);
  return 1;
}
