import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { UnauthorizedError } from '../errors/service-errors';

const digest = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();

/**
 * Constant-time comparison of presented secrets with the configured one. Both sides are hashed
 * so neither the content nor the length of the secret leaks through timing; the configured side
 * once, here, so a request costs one hash.
 */
export function secretMatcher(expected: string): (presented: string) => boolean {
  const want = digest(expected);
  return (presented) => timingSafeEqual(digest(presented), want);
}

/** Extracts the token of an `Authorization: Bearer <token>` header, or null. */
export function bearerTokenOf(header: string | undefined): string | null {
  if (header === undefined) return null;
  const m = /^Bearer ([\x21-\x7e]+)$/.exec(header.trim());
  return m ? m[1]! : null;
}

/**
 * Adds an `onRequest` hook to `app` (an encapsulated API context) refusing every request that does
 * not present `Authorization: Bearer <token>` with exactly the configured token. An empty token
 * cannot be configured (the config schema refuses it), so there is no "auth off" mode.
 */
export function requireBearerToken(app: FastifyInstance, token: string): void {
  if (token.length === 0) throw new Error('a service token is required');
  const matches = secretMatcher(token);
  app.addHook('onRequest', async (request: FastifyRequest) => {
    const presented = bearerTokenOf(request.headers.authorization);
    if (presented === null || !matches(presented)) {
      throw new UnauthorizedError('missing or invalid bearer token');
    }
  });
}
