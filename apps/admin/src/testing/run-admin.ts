import { spawnSync } from 'node:child_process';
import { workspaceRoot } from './build-admin';

/** What one CLI run printed and how it ended (`status` null: killed by a signal or the timeout). */
export interface CliRun {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs the built CLI to completion with exactly `env` (plus PATH): nothing of the test process's
 * own environment (e.g. a `QIM_ENV` exported by CI) leaks into the run.
 */
export function runAdmin(entry: string, args: readonly string[], env: Record<string, string>, timeoutMs = 120_000): CliRun {
  const r = spawnSync(process.execPath, [entry, ...args], {
    cwd: workspaceRoot,
    env: { PATH: process.env['PATH'] ?? '', ...env },
    encoding: 'utf8',
    timeout: timeoutMs,
  });
  if (r.error) throw r.error;
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}
