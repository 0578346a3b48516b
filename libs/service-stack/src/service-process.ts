import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import type { WriteStream } from 'node:fs';
import { workspaceRoot } from './workspace';

export interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** The production node flags of the services (docker/*.Dockerfile, docs/configuration.md "Node flags"): a larger young generation. */
export const SERVICE_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=32'];

/**
 * The node binary the services run on: `SERVICE_NODE` (the test command sets it to the pinned
 * Node 24 of the Docker images, `tools/infra/infra service-node`), else this process's own node.
 */
export function serviceNode(): string {
  return process.env['SERVICE_NODE'] || process.execPath;
}

export interface ServiceProcessOptions {
  /** Arguments after the entry (e.g. `create-topics`). */
  readonly args?: readonly string[];
  /** Working directory (default: the workspace root). */
  readonly cwd?: string;
  /** A file the output is appended to, besides the kept text. */
  readonly logFile?: string;
  /** How much of the output `output` keeps: its last `tailChars` characters (default: all of it). */
  readonly tailChars?: number;
  /** Node flags before the entry (default none; `SERVICE_NODE_FLAGS` are the production ones). */
  readonly nodeFlags?: readonly string[];
}

/** Every service process started here that has not exited yet. */
const live = new Set<ServiceProcess>();

/** SIGKILLs every live service process (a runner told to stop leaves no orphans); returns how many. */
export function killAllServiceProcesses(): number {
  for (const p of live) void p.stop('SIGKILL');
  return live.size;
}

/**
 * One service process started from its bundle (`node <entry>`), with its output kept for
 * assertions and failure messages (and written to a log file when asked). Can be signalled,
 * stopped and awaited.
 */
export class ServiceProcess {
  private readonly child: ChildProcess;
  private text = '';
  private readonly log: WriteStream | null;
  private exit: Exit | null = null;
  readonly exited: Promise<Exit>;

  constructor(
    readonly name: string,
    entry: string,
    env: Record<string, string>,
    options: ServiceProcessOptions = {},
  ) {
    const { args = [], cwd = workspaceRoot, logFile, tailChars = Infinity, nodeFlags = [] } = options;
    this.log = logFile === undefined ? null : createWriteStream(logFile, { flags: 'a' });
    // SERVICE_NODE_ARGS (word-split), as for tools/bench/e2e/ab.sh: e.g. "--cpu-prof --cpu-prof-dir=DIR" to profile the services.
    const extra = (process.env['SERVICE_NODE_ARGS'] ?? '').split(/\s+/).filter(Boolean);
    this.child = spawn(serviceNode(), [...nodeFlags, ...extra, entry, ...args], {
      cwd,
      env: { PATH: process.env['PATH'] ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const keep = (d: Buffer): void => {
      this.log?.write(d);
      this.text += d.toString();
      if (this.text.length > tailChars) this.text = this.text.slice(-tailChars);
    };
    this.child.stdout?.on('data', keep);
    this.child.stderr?.on('data', keep);
    live.add(this);
    // 'close', not 'exit': 'exit' can come before the last output has been read from the pipes.
    // The exit is answered once the log file has it all too.
    this.exited = new Promise((resolve) =>
      this.child.once('close', (code, signal) => {
        live.delete(this);
        const exit = { code, signal };
        const done = (): void => {
          this.exit = exit;
          resolve(exit);
        };
        if (this.log) this.log.end(done);
        else done();
      }),
    );
  }

  /** The output kept so far (stdout and stderr interleaved as they arrived). */
  get output(): string {
    return this.text;
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  get running(): boolean {
    return this.exit === null;
  }

  /** Waits until `url` answers 200 (the service's /readyz), or fails with the process output (exit before ready, or timeout). */
  async waitReady(url: string, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.exit) throw new Error(`${this.name} exited (${JSON.stringify(this.exit)}) before ready:\n${this.text.slice(-4000)}`);
      try {
        // A slow answer is waited for (a loaded machine's readiness can take seconds), up to the deadline.
        const r = await fetch(url, { signal: AbortSignal.timeout(Math.max(1, deadline - Date.now())) });
        if (r.status === 200) return;
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error(`${this.name} not ready within ${timeoutMs} ms:\n${this.text.slice(-4000)}`);
  }

  /** Sends a signal and returns (e.g. SIGSTOP / SIGCONT to freeze the process and let it run again). */
  signal(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }

  /** Sends `signal` and waits for the exit (SIGKILL after `timeoutMs`); an exited process answers its exit at once. */
  async stop(signal: NodeJS.Signals = 'SIGTERM', timeoutMs = 30_000): Promise<Exit> {
    if (this.exit) return this.exit;
    this.child.kill(signal);
    const timer = setTimeout(() => this.child.kill('SIGKILL'), timeoutMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }
}

/** What a command run to completion did: its exit and its output. */
export interface RunResult extends Exit {
  readonly output: string;
}

/** Runs a command of a bundle to completion (e.g. `create-topics`, or a start-up that must refuse); SIGKILL after `timeoutMs`. */
export async function runToExit(
  name: string,
  entry: string,
  env: Record<string, string>,
  args: readonly string[] = [],
  timeoutMs = 60_000,
  options: Omit<ServiceProcessOptions, 'args'> = {},
): Promise<RunResult> {
  const p = new ServiceProcess(name, entry, env, { ...options, args });
  const timer = setTimeout(() => void p.stop('SIGKILL'), timeoutMs);
  try {
    const exit = await p.exited;
    return { ...exit, output: p.output };
  } finally {
    clearTimeout(timer);
  }
}
