import { spawn } from 'node:child_process';
import { builtEntry, workspaceRoot } from './build-services';

/** The `qim` CLI's bundle (its `build` target's output, built once per run by the global setup). */
export function qimCliEntry(): string {
  return builtEntry('cli');
}

export interface QimRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * One `qim` process with exactly `env` (plus PATH). `until` (optional) is checked on each stdout
 * chunk; once true the process gets SIGINT, as a person stops `qim sync --follow` with Ctrl-C.
 */
export function runQim(
  entry: string,
  args: readonly string[],
  env: Record<string, string>,
  until?: (stdout: string) => boolean,
  timeoutMs = 60_000,
): Promise<QimRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [entry, ...args], {
      cwd: workspaceRoot,
      env: { PATH: process.env['PATH'] ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      if (until?.(stdout)) child.kill('SIGINT');
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
