import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ServiceMetrics } from '../metrics/service-metrics';
import { OPENAPI_PATH, errorBodySchema, errorResponses, jsonResponse } from './openapi';
import { UnauthorizedError } from '../errors/service-errors';
import { presentedTokenCheck } from './bearer-auth';
import type { ReadinessCheck } from './readiness';
import { ReadinessProbe } from './readiness-probe';
import { RETRY_AFTER_SECONDS } from './retry-after';

export interface OpsRoutesOptions {
  readonly readiness: readonly ReadinessCheck[];
  /** The service tokens: a caller presenting one gets the checks' details from `/readyz`. */
  readonly tokens: readonly string[];
  readonly metrics: ServiceMetrics;
  /** What `/readyz` checks, for its summary (e.g. "Backend readiness, Kafka, writer lease"). */
  readonly readinessSummary: string;
  /** How long one run of the checks answers `/readyz` (ms, default 1 000). */
  readonly readinessMaxAgeMs?: number;
  readonly now?: () => number;
}

const readinessAnswer = z.object({
  status: z.enum(['ready', 'not_ready']),
  checks: z.record(z.string(), z.object({ ok: z.boolean(), detail: z.unknown().optional() })).optional(),
});

/**
 * Operator routes: `/healthz` (the process answers), `/readyz` (every real check, run at most once
 * per interval however many ask; 503 when any fails — only the status without a token, each check
 * and its detail for a caller presenting a service token, 401 for a wrong token), `/metrics`
 * (Prometheus text), `/openapi.json` (generated from the routes' schemas; needs
 * `installRouteSchemas` first). None requires a token.
 */
export function registerOpsRoutes(app: FastifyInstance, opts: OpsRoutesOptions): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const open = { authed: false } as const;
  const probe = new ReadinessProbe(opts.readiness, { maxAgeMs: opts.readinessMaxAgeMs, now: opts.now });
  const presented = presentedTokenCheck(opts.tokens);
  r.get(
    '/healthz',
    {
      schema: { summary: 'The process answers', response: { 200: jsonResponse('alive', z.object({ status: z.literal('ok') })), ...errorResponses([], open) } },
    },
    async () => ({ status: 'ok' as const }),
  );
  r.get(
    '/readyz',
    {
      schema: {
        summary: opts.readinessSummary,
        response: {
          ...errorResponses(['UNAUTHORIZED'], open),
          200: jsonResponse('ready: every check passed (`checks` only with a service token)', readinessAnswer),
          // A check failing answers its report; a server that is closing answers the error body.
          503: jsonResponse('not ready (with a service token the report names the failed checks) | UNAVAILABLE', z.union([readinessAnswer, errorBodySchema])),
        },
      },
    },
    async (request, reply) => {
      const who = presented(request);
      if (who === 'invalid') throw new UnauthorizedError('invalid bearer token (/readyz answers without one, or with a valid one)');
      const report = await probe.report();
      const status = report.ready ? ('ready' as const) : ('not_ready' as const);
      if (!report.ready) void reply.header('retry-after', String(RETRY_AFTER_SECONDS));
      return reply.status(report.ready ? 200 : 503).send(who === 'valid' ? { status, checks: report.checks } : { status });
    },
  );
  r.get(
    '/metrics',
    {
      schema: {
        summary: 'Prometheus metrics',
        response: { 200: { description: 'Prometheus text exposition', content: { 'text/plain': { schema: z.string() } } }, ...errorResponses([], open) },
      },
    },
    async (_request, reply) => {
      const text = await opts.metrics.registry.metrics();
      return reply.type(opts.metrics.registry.contentType).send(text);
    },
  );
  r.get(
    OPENAPI_PATH,
    {
      schema: {
        summary: 'This OpenAPI document (browsable at /docs)',
        response: { 200: jsonResponse('OpenAPI 3.1', z.looseObject({ openapi: z.string() })), ...errorResponses([], open) },
      },
    },
    async () => app.swagger() as { openapi: string },
  );
}
