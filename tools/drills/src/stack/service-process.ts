import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import type { WriteStream } from 'node:fs';

export interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

const TAIL_CHARS = 8_000;

/** The production node flags of the services (docker/*.Dockerfile, docs/configuration.md "Node flags"): a larger young generation. */
const SERVICE_NODE_FLAGS = ['--max-semi-space-size=32'];

/** The node binary the services run on: `SERVICE_NODE` (set by the test command: the pinned Node 24 of the Docker images), else this process's own. */
function serviceNode(): string {
  return process.env['SERVICE_NODE'] || process.execPath;
}

/** Every service process a drill started that has not exited yet (killed when the runner is told to stop). */
const live = new Set<ServiceProcess>();

/** SIGKILLs every live service process (the runner's SIGTERM/SIGINT: a bounded CI step leaves no orphans). */
export function killAllServiceProcesses(): number {
  for (const p of live) void p.stop('SIGKILL');
  return live.size;
}

/**
 * One service process started from its bundle (`node <entry>`), its output written to a log file
 * and its last lines kept for failure messages. Can be killed (any signal) and awaited.
 */
export class ServiceProcess {
  private readonly child: ChildProcess;
  private tailText = '';
  private readonly log: WriteStream;
  private exit: Exit | null = null;
  readonly exited: Promise<Exit>;

  constructor(
    readonly name: string,
    entry: string,
    env: Record<string, string>,
    cwd: string,
    logFile: string,
    args: readonly string[] = [],
  ) {
    this.log = createWriteStream(logFile, { flags: 'a' });
    this.child = spawn(serviceNode(), [...SERVICE_NODE_FLAGS, entry, ...args], { cwd, env: { PATH: process.env['PATH'] ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    const keep = (d: Buffer): void => {
      this.log.write(d);
      this.tailText = (this.tailText + d.toString()).slice(-TAIL_CHARS);
    };
    this.child.stdout?.on('data', keep);
    this.child.stderr?.on('data', keep);
    live.add(this);
    this.exited = new Promise((resolve) =>
      this.child.once('exit', (code, signal) => {
        live.delete(this);
        this.exit = { code, signal };
        this.log.end();
        resolve(this.exit);
      }),
    );
  }

  get output(): string {
    return this.tailText;
  }

  get running(): boolean {
    return this.exit === null;
  }

  /** Waits until `url` answers 200, or fails with the process output (exit before ready, or timeout). */
  async waitReady(url: string, timeoutMs = 90_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.exit) throw new Error(`${this.name} exited (${JSON.stringify(this.exit)}) before ready:\n${this.tailText.slice(-3000)}`);
      try {
        const r = await fetch(url, { signal: AbortSignal.timeout(2_000) });
        if (r.status === 200) return;
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error(`${this.name} not ready within ${timeoutMs} ms:\n${this.tailText.slice(-3000)}`);
  }

  /** Sends `signal` and waits for the exit (SIGKILL after `timeoutMs`). */
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
