import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { workspaceRoot } from './build-services';

export interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/**
 * The node binary the services run on: `SERVICE_NODE` (the test command sets it to the pinned
 * Node 24 of the Docker images, `tools/infra/infra service-node`), else this process's own node.
 */
export function serviceNode(): string {
  return process.env['SERVICE_NODE'] || process.execPath;
}

/** One service process started from its bundle, with its output kept for assertions and failure messages. */
export class ServiceProcess {
  private readonly child: ChildProcess;
  private out = '';
  readonly exited: Promise<Exit>;

  constructor(
    readonly name: string,
    entry: string,
    env: Record<string, string>,
    args: readonly string[] = [],
  ) {
    this.child = spawn(serviceNode(), [entry, ...args], {
      cwd: workspaceRoot,
      env: { PATH: process.env['PATH'] ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stdout?.on('data', (d: Buffer) => (this.out += d.toString()));
    this.child.stderr?.on('data', (d: Buffer) => (this.out += d.toString()));
    this.exited = new Promise((resolve) => this.child.once('exit', (code, signal) => resolve({ code, signal })));
  }

  get output(): string {
    return this.out;
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  /** Waits until `url` answers 200 (the service's /readyz), or fails with the process output. */
  async waitReady(url: string, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let exited: Exit | null = null;
    void this.exited.then((e) => (exited = e));
    while (Date.now() < deadline) {
      if (exited) throw new Error(`${this.name} exited (${JSON.stringify(exited)}) before ready:\n${this.out.slice(-4000)}`);
      try {
        const r = await fetch(url);
        if (r.status === 200) return;
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error(`${this.name} not ready within ${timeoutMs} ms:\n${this.out.slice(-4000)}`);
  }

  /** Sends a signal and returns (e.g. SIGSTOP / SIGCONT to freeze the process and let it run again). */
  signal(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }

  /** Sends a signal and waits for the exit. */
  async stop(signal: NodeJS.Signals = 'SIGTERM', timeoutMs = 30_000): Promise<Exit> {
    this.child.kill(signal);
    const timer = setTimeout(() => this.child.kill('SIGKILL'), timeoutMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }
}

/** Runs a command of a bundle to completion (e.g. `create-topics`, or a start-up that must refuse). */
export async function runToExit(name: string, entry: string, env: Record<string, string>, args: readonly string[] = [], timeoutMs = 60_000): Promise<{ exit: Exit; output: string }> {
  const p = new ServiceProcess(name, entry, env, args);
  const timer = setTimeout(() => void p.stop('SIGKILL'), timeoutMs);
  try {
    const exit = await p.exited;
    return { exit, output: p.output };
  } finally {
    clearTimeout(timer);
  }
}
