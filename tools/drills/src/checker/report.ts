import type { CheckResult } from './checker';

const pad = (s: string, n: number): string => (s.length >= n ? s : s + ' '.repeat(n - s.length));
const lpad = (s: string, n: number): string => (s.length >= n ? s : ' '.repeat(n - s.length) + s);

/** The drill's report: counts, the invariant table, lost/duplicated and the PASS/FAIL line. */
export function formatReport(drill: string, result: CheckResult, extra: readonly string[] = []): string {
  const c = result.counts;
  const v = result.verdict;
  const lines = [
    `drill ${drill}`,
    `  attempted ${c.attempted}  acknowledged ${c.acknowledged}  failed-cleanly ${c.failedClean} (repeated after quiescence)  refused-as-expected ${c.refused}`,
    `  duplicate answers ${c.duplicateSends}  conflict probes ${c.conflictProbes}  membership calls given up ${c.membershipFailures}` +
      `  device resyncs ${c.deviceResyncs}  device sync failures ${c.deviceFailures}`,
    `  load ${(c.loadMs / 1000).toFixed(1)} s  quiescence ${(c.quiescenceMs / 1000).toFixed(1)} s` +
      `  send→answer p50 ${c.sendMs.p50} ms p99 ${c.sendMs.p99} ms max ${c.sendMs.max} ms`,
    `  errors surfaced after the client's retries: ${
      Object.entries(c.surfacedErrors)
        .map(([k, n]) => `${k} ${n}`)
        .join(', ') || 'none'
    }`,
    ...extra.map((e) => `  ${e}`),
    '',
    `  ${pad('invariant', 60)} ${lpad('checked', 8)} ${lpad('violated', 9)}`,
    ...v.rows.map((r) => `  ${pad(r.name, 60)} ${lpad(String(r.checked), 8)} ${lpad(String(r.violations), 9)}`),
    '',
    `  lost = ${v.lost}`,
    `  duplicated = ${v.duplicated}`,
  ];
  for (const r of v.rows) for (const e of r.examples) lines.push(`  ! ${r.name}: ${e}`);
  lines.push(`${v.pass ? 'PASS' : 'FAIL'} ${drill}`);
  return lines.join('\n');
}
