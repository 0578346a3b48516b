import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from '@qim/store-core/testing';

/**
 * A dedicated `redis-server` for one spec: its own free port and temp directory, started and
 * stopped by pid (SIGKILL for a crash, restart on the same port and directory). Fails loudly when
 * the `redis-server` binary is missing.
 */
export class RedisServerProcess {
  readonly dir: string;
  private child: ChildProcess | null = null;

  private constructor(
    readonly port: number,
    private readonly args: readonly string[],
  ) {
    this.dir = mkdtempSync(join(tmpdir(), 'qim-redis-'));
  }

  static async start(args: readonly string[]): Promise<RedisServerProcess> {
    const found = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
    if (found.error || found.status !== 0) throw new Error('redis-server binary not found on PATH (the durability spec starts its own server; it never skips)');
    const server = new RedisServerProcess(await freePort(), args);
    await server.launch();
    return server;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  private async launch(): Promise<void> {
    this.child = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--dir', this.dir, '--save', '', ...this.args], {
      stdio: 'ignore',
    });
    const deadline = Date.now() + 10_000;
    for (;;) {
      const probe = new Redis(this.url, { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => null });
      try {
        await probe.connect();
        const info = await probe.info('persistence');
        if (/^loading:0/m.test(info)) return;
      } catch {
        // not up yet
      } finally {
        probe.disconnect();
      }
      if (Date.now() > deadline) throw new Error(`redis-server on ${this.port} did not become ready`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** SIGKILL (no shutdown save, no AOF rewrite: a crash), waiting for the process to be gone. */
  async kill(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (child === null || child.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
  }

  /**
   * SIGSTOP: the process stops answering while its sockets stay open and the kernel keeps
   * accepting bytes, as a server that silently drops packets looks to its clients.
   */
  freeze(): void {
    this.signal('SIGSTOP');
  }

  /** SIGCONT after `freeze`: the server reads and answers what was sent meanwhile, in order. */
  thaw(): void {
    this.signal('SIGCONT');
  }

  private signal(sig: 'SIGSTOP' | 'SIGCONT'): void {
    const child = this.child;
    if (child === null || child.exitCode !== null || child.pid === undefined) throw new Error(`redis-server on ${this.port} is not running`);
    process.kill(child.pid, sig);
  }

  /** Starts again on the same port and directory (the AOF is replayed). */
  async restart(): Promise<void> {
    await this.kill();
    await this.launch();
  }

  /**
   * A copy of the data directory as it is now (a backup): take it while nothing writes, with
   * `appendfsync always` every acknowledged write is in it. Returns the copy's directory.
   */
  backup(): string {
    const copy = mkdtempSync(join(tmpdir(), 'qim-redis-backup-'));
    cpSync(this.dir, copy, { recursive: true });
    return copy;
  }

  /**
   * Kills the server and starts it again from `backup` (a restored backup: every write after the
   * backup is lost, and the server is a new process with a new run id). The backup stays usable.
   */
  async restore(backup: string): Promise<void> {
    await this.kill();
    rmSync(this.dir, { recursive: true, force: true });
    cpSync(backup, this.dir, { recursive: true });
    await this.launch();
  }

  async stop(): Promise<void> {
    if (this.child !== null && this.child.exitCode === null && this.child.pid !== undefined) process.kill(this.child.pid, 'SIGCONT');
    await this.kill();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
