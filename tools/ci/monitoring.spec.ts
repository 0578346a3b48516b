import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The shipped monitoring (docker/monitoring): the alert rules pass promtool's checks and their unit
 * tests, the Prometheus config is valid, the Grafana dashboard is what its builder writes, and every
 * metric the rules and the dashboard use is one the services register. promtool comes from Debian's
 * `prometheus` package (tools/ci/ensure-promtool.sh installs it for the test command); without it
 * this spec fails, never skips.
 */
const root = join(__dirname, '..', '..');
const dir = join(root, 'docker', 'monitoring');

function promtool(...args: string[]): string {
  try {
    return execFileSync('promtool', args, { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    const e = err as { code?: string; stdout?: string; stderr?: string };
    if (e.code === 'ENOENT') throw new Error('promtool is not installed: apt-get install prometheus (tools/ci/ensure-promtool.sh)');
    throw new Error(`promtool ${args.join(' ')} failed:\n${e.stdout ?? ''}${e.stderr ?? ''}`);
  }
}

function sourceFiles(d: string): string[] {
  return readdirSync(d).flatMap((name) => {
    const p = join(d, name);
    if (name === 'node_modules') return [];
    if (statSync(p).isDirectory()) return sourceFiles(p);
    return p.endsWith('.ts') && !p.endsWith('.spec.ts') ? [p] : [];
  });
}

/** Every `qim_*` metric the services' libraries register, with the suffixes Prometheus derives for histograms. */
function registeredMetrics(): Set<string> {
  const names = new Set<string>();
  for (const file of sourceFiles(join(root, 'libs'))) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/new (Counter|Gauge|Histogram)\(\{\s*name: '(qim_[a-z0-9_]+)'/g)) {
      names.add(m[2]!);
      if (m[1] === 'Histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(m[2]! + s);
    }
  }
  return names;
}

/** The `qim_*` names an expression text uses that are not registered. */
export function unknownMetrics(text: string, known: ReadonlySet<string>): string[] {
  return [...new Set(text.match(/\bqim_[a-z0-9_]+/g) ?? [])].filter((n) => !known.has(n)).sort();
}

describe('docker/monitoring', () => {
  it('alert rules pass promtool check and their unit tests', () => {
    expect(promtool('check', 'rules', 'qim-alerts.yml')).toMatch(/SUCCESS: 10 rules found/);
    expect(promtool('test', 'rules', 'qim-alerts.test.yml')).toMatch(/SUCCESS/);
  });

  it('the Prometheus config is valid and loads the rules', () => {
    expect(promtool('check', 'config', 'prometheus.yml')).toMatch(/SUCCESS: 1 rule files found/);
  });

  it('the dashboard is what its builder writes', () => {
    expect(() => execFileSync(process.execPath, [join(dir, 'build-dashboard.mjs'), '--check'], { stdio: 'pipe' })).not.toThrow();
  });

  it('uses only metrics the services register', () => {
    const known = registeredMetrics();
    expect(known.has('qim_shard_stalled')).toBe(true);
    expect(known.has('qim_commit_step_seconds_bucket')).toBe(true);
    expect(unknownMetrics('rate(qim_no_such_metric_total[1m]) + qim_shard_stalled', known)).toEqual(['qim_no_such_metric_total']);
    expect(unknownMetrics(readFileSync(join(dir, 'qim-alerts.yml'), 'utf8'), known)).toEqual([]);
    expect(unknownMetrics(readFileSync(join(dir, 'qim-dashboard.json'), 'utf8'), known)).toEqual([]);
  });
});
