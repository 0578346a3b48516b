import fastify from 'fastify';
import { installErrorHandler } from './error-handler';
import { serviceServerOptions } from './server-options';

async function linesOfOneRequest(logRequests: boolean | undefined): Promise<string[]> {
  const lines: string[] = [];
  const app = fastify(
    serviceServerOptions({
      service: 't',
      logLevel: 'info',
      bodyLimit: 1024,
      requestTimeoutMs: 1000,
      logStream: { write: (l) => void lines.push(l) },
      ...(logRequests === undefined ? {} : { logRequests }),
    }),
  );
  installErrorHandler(app);
  app.get('/x', async () => ({ ok: true }));
  app.get('/boom', async () => {
    throw new Error('boom');
  });
  await app.inject({ method: 'GET', url: '/x' });
  await app.inject({ method: 'GET', url: '/boom' });
  await app.close();
  return lines.map((l) => JSON.parse(l).msg as string);
}

describe('serviceServerOptions request logging', () => {
  it("writes no per-request lines by default; the services' error handler still logs a failing request", async () => {
    const msgs = await linesOfOneRequest(undefined);
    expect(msgs).not.toContain('incoming request');
    expect(msgs).not.toContain('request completed');
    expect(msgs).toContain('request failed');
  });

  it('writes both per-request lines when asked for', async () => {
    const msgs = await linesOfOneRequest(true);
    expect(msgs.filter((m) => m === 'incoming request')).toHaveLength(2);
    expect(msgs.filter((m) => m === 'request completed')).toHaveLength(2);
  });
});
