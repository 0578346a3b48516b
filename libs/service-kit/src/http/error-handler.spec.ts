import fastify from 'fastify';
import { InvalidInputError, UnavailableError } from '@qim/store-core';
import { installErrorHandler } from './error-handler';

class SlowDownError extends UnavailableError {
  readonly retryAfterSeconds = 5;
}

describe('installErrorHandler: Retry-After', () => {
  async function app() {
    const a = fastify({ logger: false });
    installErrorHandler(a);
    a.get('/unavailable', async () => {
      throw new UnavailableError('redis at 10.0.0.1:6379 is unreachable');
    });
    a.get('/slow-down', async () => {
      throw new SlowDownError('bounded');
    });
    a.get('/bad', async () => {
      throw new InvalidInputError('nope');
    });
    await a.ready();
    return { a };
  }

  it('every 503 carries Retry-After (1 s, or what the error asks for); a 4xx none', async () => {
    const { a } = await app();
    const u = await a.inject({ url: '/unavailable' });
    expect([u.statusCode, u.headers['retry-after']]).toEqual([503, '1']);
    expect(u.body).not.toContain('10.0.0.1');
    const s = await a.inject({ url: '/slow-down' });
    expect([s.statusCode, s.headers['retry-after']]).toEqual([503, '5']);
    const b = await a.inject({ url: '/bad' });
    expect([b.statusCode, b.headers['retry-after']]).toEqual([400, undefined]);
    await a.close();
  });
});
