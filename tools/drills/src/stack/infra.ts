import { spawn } from 'node:child_process';
import path from 'node:path';
import { workspaceRoot } from './bundles';

export interface InfraResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

/**
 * Runs `tools/infra/infra <args>` (bounded by `timeoutMs`, then SIGKILL) with extra environment
 * (e.g. another state dir and port for a private Redis). Never throws for a non-zero exit.
 */
export function infra(args: readonly string[], env: Record<string, string> = {}, timeoutMs = 600_000): Promise<InfraResult> {
  const t0 = Date.now();
  return new Promise((resolve) => {
    const child = spawn(path.join(workspaceRoot, 'tools', 'infra', 'infra'), [...args], {
      cwd: workspaceRoot,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: Date.now() - t0 });
    });
  });
}

/** Like `infra`, but a non-zero exit is an error carrying the command's last output lines. */
export async function infraOk(args: readonly string[], env: Record<string, string> = {}, timeoutMs?: number): Promise<InfraResult> {
  const r = await infra(args, env, timeoutMs);
  if (r.code !== 0) throw new Error(`tools/infra/infra ${args.join(' ')} failed (exit ${r.code}):\n${r.stderr.split('\n').slice(-25).join('\n')}`);
  return r;
}

/** Parses the `export X=…` lines of `infra env` / `infra up`. */
export function parseExports(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = /^export ([A-Z0-9_]+)=(.*)$/.exec(line.trim());
    if (m) out[m[1]!] = m[2]!;
  }
  return out;
}
