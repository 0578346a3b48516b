import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { WITH_TOKEN, opsApp } from '@qim/service-kit/testing';
import { freePort } from '@qim/store-core/testing';
import { openMessageBackend } from './open-backend';

/**
 * `/readyz` over a Redis store's readiness: a Redis that refuses a command (then stops: a closed port)
 * turns readiness red; the public answer names nothing, the token's answer says what failed.
 */
jest.setTimeout(60_000);

const run = promisify(execFile);

describe('/readyz over real servers', () => {
  describe('a Redis of its own', () => {
    let server: ChildProcess;
    let port: number;
    beforeAll(async () => {
      port = await freePort();
      server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
      for (let i = 0; ; i++) {
        const up = await run('redis-cli', ['-p', String(port), 'PING']).then(
          (r) => r.stdout.trim() === 'PONG',
          () => false,
        );
        if (up) break;
        if (i > 100) throw new Error('redis-server did not start');
        await new Promise((r) => setTimeout(r, 50));
      }
    });
    afterAll(() => {
      if (server.exitCode === null) server.kill('SIGKILL');
    });

    it('refusing the readiness command, then gone (a closed port): 503 without driver text publicly, the Redis error with the token', async () => {
      const backend = await openMessageBackend({ kind: 'redis', redisUrl: `redis://127.0.0.1:${port}`, namespace: 'qimtest' }, 'test', () => undefined);
      let now = 0;
      const app = await opsApp([backend.readiness], { now: () => now });
      try {
        expect((await app.inject({ url: '/readyz' })).statusCode).toBe(200);

        await run('redis-cli', ['-p', String(port), 'ACL', 'SETUSER', 'default', '-info']);
        now += 5_000;
        const pub = await app.inject({ url: '/readyz' });
        expect([pub.statusCode, pub.json()]).toEqual([503, { status: 'not_ready' }]);
        const detail = (await app.inject({ url: '/readyz', headers: WITH_TOKEN })).json();
        expect(detail.checks.store).toEqual({ ok: false, detail: expect.objectContaining({ reason: expect.stringMatching(/NOPERM/) }) });

        const exited = new Promise((resolve) => server.once('exit', resolve));
        server.kill('SIGKILL');
        await exited;
        now += 5_000;
        const gone = await app.inject({ url: '/readyz' });
        expect([gone.statusCode, gone.json()]).toEqual([503, { status: 'not_ready' }]);
        expect(gone.body).not.toContain(String(port));
      } finally {
        await app.close();
        await backend.close().catch(() => undefined);
      }
    });
  });
});
