import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Id128 } from '@qim/store-core';
import { UnavailableError } from '@qim/store-core';
import { freePort } from '@qim/store-core/testing';
import { statusOfCode } from '@qim/service-kit';
import { openMailboxBackend } from '@qim/backends';
import type { MailboxBackend } from '@qim/backends';
import { FrontierBoard } from './frontier-board';
import { MailboxReader } from './mailbox-reader';

jest.setTimeout(60_000);

const newId = (): Id128 => randomBytes(16).toString('hex') as Id128;

async function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const c = createConnection({ host: '127.0.0.1', port }, () => c.write('PING\r\n'));
    c.once('data', (d) => (c.destroy(), resolve(String(d).startsWith('+PONG'))));
    c.once('error', () => resolve(false));
  });
}

/**
 * Issue 28 item 5 over a real Redis that stops answering (its own redis-server, SIGSTOP; never the
 * shared one): a sync answers within its wait plus the reader's store bound with `UNAVAILABLE` (503),
 * not when the connection gives up, and the store's command timeout is not what ends it.
 */
describe('MailboxReader over a frozen Redis (own redis-server, SIGSTOP)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'qim-frozen-redis-'));
  let child: ChildProcess;
  let backend: MailboxBackend;

  beforeAll(async () => {
    if (spawnSync('redis-server', ['--version']).status !== 0)
      throw new Error('redis-server binary not found on PATH (this spec starts its own server; it never skips)');
    const port = await freePort();
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', ''], { stdio: 'ignore' });
    while (!(await answersPing(port))) await new Promise((r) => setTimeout(r, 50));
    backend = await openMailboxBackend(
      { kind: 'redis', redisUrl: `redis://127.0.0.1:${port}`, namespace: `frz${process.pid}` },
      'test',
      { epoch: 1, gc: { entryRetentionMs: 86_400_000n, dispatchDedupeMs: 86_400_000n }, applyConcurrency: 4 },
      () => undefined,
    );
  });

  afterAll(async () => {
    child.kill('SIGCONT');
    await backend.close().catch(() => undefined);
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('a long poll (wait_ms 1000) on a shard read from the store answers UNAVAILABLE within wait_ms + storeBoundMs', async () => {
    const reader = new MailboxReader({ storeFor: (s) => backend.storeFor(s), shardCount: 2, epoch: 1, board: new FrontierBoard(), storeBoundMs: 1_000 });
    const tenantId = newId();
    const userId = newId();
    // Answered while the server runs: an empty mailbox.
    const first = await reader.sync({ tenantId, actingUser: userId, userId, after: null, limit: 10, maxBytes: 1 << 20, waitMs: 0 });
    expect(first.entries).toEqual([]);
    child.kill('SIGSTOP');
    const t0 = Date.now();
    const err = await reader.sync({ tenantId, actingUser: userId, userId, after: first.nextAfter, limit: 10, maxBytes: 1 << 20, waitMs: 1_000 }).then(
      () => null,
      (e: unknown) => e,
    );
    const elapsed = Date.now() - t0;
    child.kill('SIGCONT');
    expect(err).toBeInstanceOf(UnavailableError);
    expect(statusOfCode((err as UnavailableError).code)).toBe(503);
    // The reader's bound ended it (wait 1 s + bound 1 s), not the Redis command timeout (5 s).
    expect(String((err as Error).message)).toMatch(/^sync: the store did not answer in time/);
    expect(elapsed).toBeLessThan(4_000);
  });
});
