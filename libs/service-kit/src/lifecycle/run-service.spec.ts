import fastify from 'fastify';
import { shutDown } from './run-service';
import { ShutdownStack } from './shutdown-stack';

describe('shutDown', () => {
  it('keeps one global deadline over the HTTP drain and every closing step', async () => {
    const app = fastify({ logger: false });
    let reached = false;
    app.get('/hang', () => {
      reached = true;
      return new Promise(() => undefined);
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = app.server.address() as { port: number };
    const inFlight = fetch(`http://127.0.0.1:${port}/hang`).catch(() => 'aborted');
    while (!reached) await new Promise((r) => setTimeout(r, 10));
    const stack = new ShutdownStack();
    const closed: string[] = [];
    stack.push('redis', async () => void closed.push('redis'));
    stack.push('producer', () => new Promise<void>(() => closed.push('producer')));
    const t0 = Date.now();
    const outcome = await shutDown({ app, stack, host: '127.0.0.1', port, shutdownGraceMs: 10_000, shutdownDeadlineMs: 600 }, { signal: 'SIGTERM' });
    const took = Date.now() - t0;
    expect(took).toBeGreaterThanOrEqual(590);
    expect(took).toBeLessThan(2_000);
    // The hanging request used the whole budget: the steps after it were abandoned, not waited for one by one.
    expect(outcome).toEqual({ failed: ['http', 'producer', 'redis'], exitCode: 1 });
    expect(closed).toEqual([]);
    app.server.closeAllConnections();
    await inFlight;
  });

  it('exits 0 after a clean stop and 1 after a terminal failure, with the same sequence', async () => {
    for (const [cause, code] of [
      [{ signal: 'SIGTERM' }, 0],
      [{ terminal: 'writer lease lost' }, 1],
    ] as const) {
      const app = fastify({ logger: false });
      await app.ready();
      const stack = new ShutdownStack();
      const closed: string[] = [];
      stack.push('redis', async () => void closed.push('redis'));
      expect(await shutDown({ app, stack, host: '127.0.0.1', port: 0, shutdownGraceMs: 1_000, shutdownDeadlineMs: 2_000 }, cause)).toEqual({
        failed: [],
        exitCode: code,
      });
      expect(closed).toEqual(['redis']);
    }
  });
});
