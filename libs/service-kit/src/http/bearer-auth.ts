import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { UnauthorizedError } from '../errors/service-errors';

const digest = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();

/**
 * Constant-time check of a presented token against every configured one (several during a
 * rotation). Both sides are hashed (SHA-256), so neither the content nor the length of a secret
 * leaks through timing; the presented token is hashed once and compared with every configured
 * digest, without stopping at a match, so the time does not say which token matched either.
 */
export function tokenMatcher(tokens: readonly string[]): (presented: string) => boolean {
  if (tokens.length === 0) throw new Error('at least one service token is required');
  if (tokens.some((t) => t.length === 0)) throw new Error('a service token cannot be empty');
  const wanted = tokens.map(digest);
  return (presented) => {
    const got = digest(presented);
    let matched = false;
    for (const want of wanted) matched = timingSafeEqual(got, want) || matched;
    return matched;
  };
}

/** Extracts the token of an `Authorization: Bearer <token>` header, or null. */
export function bearerTokenOf(header: string | undefined): string | null {
  if (header === undefined) return null;
  const m = /^Bearer ([\x21-\x7e]+)$/.exec(header.trim());
  return m ? m[1]! : null;
}

/**
 * Whether a request presents one of the configured tokens: `absent` (no `Authorization` header),
 * `valid`, or `invalid` (a header that is malformed or names no configured token).
 */
export type Presented = 'absent' | 'valid' | 'invalid';

export function presentedTokenCheck(tokens: readonly string[]): (request: FastifyRequest) => Presented {
  const matches = tokenMatcher(tokens);
  return (request) => {
    const header = request.headers.authorization;
    if (header === undefined) return 'absent';
    const presented = bearerTokenOf(header);
    return presented !== null && matches(presented) ? 'valid' : 'invalid';
  };
}

/**
 * Adds an `onRequest` hook to `app` (an encapsulated API context) refusing every request that does
 * not present `Authorization: Bearer <token>` with one of the configured tokens. No token list can
 * be empty (the config schema requires one), so there is no "auth off" mode.
 */
export function requireBearerToken(app: FastifyInstance, tokens: readonly string[]): void {
  const check = presentedTokenCheck(tokens);
  app.addHook('onRequest', async (request: FastifyRequest) => {
    if (check(request) !== 'valid') throw new UnauthorizedError('missing or invalid bearer token');
  });
}
