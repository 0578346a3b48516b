import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, FastifySerializerCompiler, RouteOptions } from 'fastify';
import { createJsonSchemaTransform, createJsonSchemaTransformObject, serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ErrorCode } from '../errors/error-status';
import { ERROR_CODES, ERROR_STATUS } from '../errors/error-status';

/** Where the OpenAPI document is served (unauthenticated). */
export const OPENAPI_PATH = '/openapi.json';
/** Where the browsable docs are served (unauthenticated). */
export const DOCS_PREFIX = '/docs';

/** The wire form of every error answer (see `mapError`). */
export const errorBodySchema = z
  .object({
    code: z.enum(ERROR_CODES as [ErrorCode, ...ErrorCode[]]),
    message: z.string(),
    resync: z.literal(true).optional().describe('on 410: drop the cursor and resync'),
    request_id: z.string().optional().describe('on 5xx answers: the request id of the log line that holds the details'),
  })
  .meta({ id: 'Error' });

/** A documented JSON answer of one status. */
export function jsonResponse<S extends z.ZodType>(description: string, schema: S) {
  return { description, content: { 'application/json': { schema } } } as const;
}

/** Errors every route may answer: an unexpected failure and a dependency that is down. */
const ALWAYS: readonly ErrorCode[] = ['INTERNAL', 'UNAVAILABLE'];
/** Errors of every route behind the bearer token (and its validated headers/params/body). */
const AUTHED: readonly ErrorCode[] = ['UNAUTHORIZED', 'INVALID_INPUT'];

/**
 * The error answers of a route, one entry per status: the codes it may answer (plus the ones every
 * route answers) grouped by their status from `ERROR_STATUS`, each with the error body.
 */
export function errorResponses(codes: readonly ErrorCode[], opts: { readonly authed?: boolean } = {}) {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set([...(opts.authed === false ? [] : AUTHED), ...codes, ...ALWAYS])) {
    const status = ERROR_STATUS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: Record<number, ReturnType<typeof jsonResponse<typeof errorBodySchema>>> = {};
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) out[status] = jsonResponse(list.join(' | '), errorBodySchema);
  return out;
}

/**
 * The serializer of a hot route (a send, a sync page) whose 200 answer is built by a typed function
 * of ours, its return type the schema's output: plain `JSON.stringify`, without checking the answer
 * against its schema again on every request (≈ 6 % of the mailbox's CPU for sync pages). Its other
 * statuses (the error bodies) are checked and serialized by their schema as on every route. The
 * route's tests must parse its 200 answers with the schema (nothing refused, nothing stripped).
 */
export const typedOkSerializer: FastifySerializerCompiler<unknown> = (route) =>
  route.httpStatus === '200' ? (data: unknown) => JSON.stringify(data) : serializerCompiler(route as Parameters<typeof serializerCompiler>[0]);

/** The OpenAPI security requirement of routes behind the bearer token. */
export const BEARER = [{ bearer: [] }];

export interface RouteSchemaOptions {
  readonly title: string;
  readonly version: string;
  readonly description?: string;
}

/** Refuses a route registered without a documented schema (summary and responses), e.g. a handler that parses by itself. */
function requireDocumentedSchema(route: RouteOptions): void {
  const schema = route.schema as { hide?: boolean; summary?: unknown; response?: unknown } | undefined;
  if (schema?.hide === true) return;
  if (typeof schema?.summary !== 'string' || typeof schema.response !== 'object' || schema.response === null) {
    throw new Error(`route ${String(route.method)} ${route.url} has no schema with a summary and its responses: routes are defined once, with their schema`);
  }
}

/**
 * Makes the zod schemas on the routes of `app` the only definition of each route: requests are
 * validated by them (a failure is `400 INVALID_INPUT` through the error handler), answers are
 * checked and serialized by them (except the 200 answers of routes that opt into
 * `typedOkSerializer`), and `/openapi.json` and `/docs` are generated from them.
 * Every route registered after this call must carry `schema.summary` and `schema.response` (or
 * `hide: true`); one that does not is refused at registration. Call it first in an app plugin.
 */
export async function installRouteSchemas(app: FastifyInstance, opts: RouteSchemaOptions): Promise<void> {
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.addHook('onRoute', requireDocumentedSchema);
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: opts.title, version: opts.version, ...(opts.description ? { description: opts.description } : {}) },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    },
    transform: createJsonSchemaTransform({ skipList: [] }),
    transformObject: createJsonSchemaTransformObject({}),
  });
  await app.register(fastifySwaggerUi, { routePrefix: DOCS_PREFIX });
}

interface OpenApiOperation {
  readonly summary?: unknown;
  readonly responses?: Record<string, { readonly content?: Record<string, { readonly schema?: unknown }> }>;
}

/**
 * What is wrong with the documentation of `routes` (as seen by an `onRoute` hook) in the OpenAPI
 * document `doc`: a route without a schema, missing from the document, without a summary, or
 * without a documented 200 or error answers. Empty when every route is documented. Hidden routes
 * (the docs' own) and the automatic HEAD routes are not API routes.
 */
export function undocumentedRoutes(routes: readonly Pick<RouteOptions, 'method' | 'url' | 'schema'>[], doc: unknown): string[] {
  const paths = ((doc as { paths?: Record<string, Record<string, OpenApiOperation>> }).paths ?? {}) as Record<string, Record<string, OpenApiOperation>>;
  const problems: string[] = [];
  for (const route of routes) {
    for (const method of [route.method].flat()) {
      const schema = route.schema as { hide?: boolean } | undefined;
      if (schema?.hide === true || method === 'HEAD') continue;
      const name = `${method} ${route.url}`;
      const op = paths[route.url.replace(/:([A-Za-z_]+)/g, '{$1}')]?.[method.toLowerCase()];
      if (!schema) problems.push(`${name}: no schema`);
      else if (!op) problems.push(`${name}: not in the OpenAPI document`);
      else {
        if (typeof op.summary !== 'string' || op.summary.length === 0) problems.push(`${name}: no summary`);
        const responses = op.responses ?? {};
        if (!responses['200']?.content) problems.push(`${name}: no documented 200 answer`);
        for (const status of ['500', '503']) if (!responses[status]?.content) problems.push(`${name}: no documented ${status} answer`);
      }
    }
  }
  return problems;
}
