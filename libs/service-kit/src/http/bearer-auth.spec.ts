import Fastify from 'fastify';
import { installErrorHandler } from './error-handler';
import { bearerTokenOf, requireBearerToken, tokenMatcher } from './bearer-auth';

describe('bearer auth helpers', () => {
  it('compares secrets exactly, whatever their lengths', () => {
    const matches = tokenMatcher(['s3cret-token-abcdef']);
    expect(matches('s3cret-token-abcdef')).toBe(true);
    expect(matches('s3cret-token-abcdeF')).toBe(false);
    expect(matches('short')).toBe(false);
    expect(matches('')).toBe(false);
    expect(matches('s3cret-token-abcdef-and-more')).toBe(false);
  });

  it('extracts only a well-formed bearer token', () => {
    expect(bearerTokenOf('Bearer abc.def')).toBe('abc.def');
    expect(bearerTokenOf(undefined)).toBeNull();
    expect(bearerTokenOf('Basic abc')).toBeNull();
    expect(bearerTokenOf('Bearer ')).toBeNull();
    expect(bearerTokenOf('Bearer a b')).toBeNull();
  });
});

describe('several valid tokens (rotation)', () => {
  const OLD = 'old-service-token-0123456789';
  const NEW = 'new-service-token-9876543210';

  it('accepts each configured token and nothing else', () => {
    const accepts = tokenMatcher([OLD, NEW]);
    expect(accepts(OLD)).toBe(true);
    expect(accepts(NEW)).toBe(true);
    expect(accepts(`${OLD}x`)).toBe(false);
    expect(accepts('')).toBe(false);
    expect(() => tokenMatcher([])).toThrow(/at least one/);
    expect(() => tokenMatcher([OLD, ''])).toThrow(/empty/);
  });

  it('guards an API context: both tokens pass, a missing or wrong one is 401 UNAUTHORIZED', async () => {
    const app = Fastify();
    installErrorHandler(app);
    await app.register(async (api) => {
      requireBearerToken(api, [OLD, NEW]);
      api.get('/v1/x', async () => ({ ok: true }));
    });
    const status = async (authorization?: string) =>
      (await app.inject({ url: '/v1/x', headers: authorization === undefined ? {} : { authorization } })).statusCode;
    expect(await status(`Bearer ${OLD}`)).toBe(200);
    expect(await status(`Bearer ${NEW}`)).toBe(200);
    expect(await status('Bearer not-a-configured-token')).toBe(401);
    expect(await status()).toBe(401);
    await app.close();
  });
});
