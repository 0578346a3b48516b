import type { FastifyInstance } from 'fastify';

/**
 * Bodies of this context are JSON only: Fastify's default `text/plain` parser is removed, so a
 * request with any other content type is `415 UNSUPPORTED_MEDIA_TYPE` instead of reaching the
 * handler as a string and failing validation as 400.
 */
export function acceptJsonBodiesOnly(app: FastifyInstance): void {
  app.removeContentTypeParser('text/plain');
}
