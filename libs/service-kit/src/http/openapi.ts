import { z } from 'zod';
import { ERROR_STATUS } from '../errors/error-status';

/** One documented route; schemas are the same zod schemas the handlers parse with. */
export interface RouteDoc {
  readonly method: 'get' | 'post' | 'put' | 'delete';
  /** OpenAPI path, e.g. `/v1/conversations/{id}/messages`. */
  readonly path: string;
  readonly summary: string;
  /** Needs the bearer token and acting headers. */
  readonly auth: boolean;
  readonly actingUser?: boolean;
  readonly params?: z.ZodObject;
  readonly query?: z.ZodObject;
  readonly body?: z.ZodType;
  readonly response?: z.ZodType;
  /** Error codes this route may answer (beyond the auth/validation ones). */
  readonly errors?: readonly string[];
}

const schemaOf = (s: z.ZodType, io: 'input' | 'output') => z.toJSONSchema(s, { io, unrepresentable: 'any' }) as Record<string, unknown>;

function parameters(doc: RouteDoc): object[] {
  const out: object[] = [];
  for (const [where, schema] of [['path', doc.params], ['query', doc.query]] as const) {
    if (!schema) continue;
    const js = schemaOf(schema, 'input') as { properties?: Record<string, object>; required?: string[] };
    for (const [name, s] of Object.entries(js.properties ?? {})) {
      out.push({ name, in: where, required: where === 'path' || (js.required ?? []).includes(name), schema: s });
    }
  }
  if (doc.auth) out.push({ name: 'x-qim-tenant', in: 'header', required: true, schema: { type: 'string', pattern: '^[0-9a-f]{32}$' } });
  if (doc.actingUser) out.push({ name: 'x-qim-user', in: 'header', required: true, schema: { type: 'string', pattern: '^[0-9a-f]{32}$' } });
  return out;
}

function responses(doc: RouteDoc): Record<string, object> {
  const out: Record<string, object> = {
    '200': {
      description: 'OK',
      ...(doc.response ? { content: { 'application/json': { schema: schemaOf(doc.response, 'output') } } } : {}),
    },
  };
  const codes = new Set([...(doc.auth ? ['UNAUTHORIZED', 'INVALID_INPUT'] : []), ...(doc.errors ?? []), 'INTERNAL', 'UNAVAILABLE']);
  for (const code of codes) {
    const status = String(ERROR_STATUS[code] ?? 500);
    const prev = (out[status] as { description?: string } | undefined)?.description;
    out[status] = { description: prev ? `${prev} | ${code}` : code, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
  }
  return out;
}

/** Builds an OpenAPI 3.1 document from route docs (bearer auth, stable error body). */
export function buildOpenApi(title: string, version: string, routes: readonly RouteDoc[]): object {
  const paths: Record<string, Record<string, object>> = {};
  for (const r of routes) {
    paths[r.path] ??= {};
    paths[r.path]![r.method] = {
      summary: r.summary,
      ...(r.auth ? { security: [{ bearer: [] }] } : {}),
      parameters: parameters(r),
      ...(r.body ? { requestBody: { required: true, content: { 'application/json': { schema: schemaOf(r.body, 'input') } } } } : {}),
      responses: responses(r),
    };
  }
  return {
    openapi: '3.1.0',
    info: { title, version },
    paths,
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: {
        Error: {
          type: 'object',
          required: ['code', 'message'],
          properties: {
            code: { type: 'string', enum: Object.keys(ERROR_STATUS) },
            message: { type: 'string' },
            resync: { type: 'boolean' },
            request_id: { type: 'string', description: 'on 5xx answers: the request id of the log line that holds the details' },
          },
        },
      },
    },
  };
}
