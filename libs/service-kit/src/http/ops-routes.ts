import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ServiceMetrics } from '../metrics/service-metrics';
import { OPENAPI_PATH, errorBodySchema, errorResponses, jsonResponse } from './openapi';
import type { ReadinessCheck } from './readiness';
import { runReadiness } from './readiness';

export interface OpsRoutesOptions {
  readonly readiness: readonly ReadinessCheck[];
  readonly metrics: ServiceMetrics;
  /** What `/readyz` checks, for its summary (e.g. "Backend readiness, Kafka, writer lease"). */
  readonly readinessSummary: string;
}

const readinessAnswer = z.object({
  status: z.enum(['ready', 'not_ready']),
  checks: z.record(z.string(), z.object({ ok: z.boolean(), detail: z.unknown().optional() })),
});

/**
 * Unauthenticated operator routes: `/healthz` (the process answers), `/readyz` (every real check;
 * 503 with details when any fails), `/metrics` (Prometheus text), `/openapi.json` (generated from
 * the routes' schemas; needs `installRouteSchemas` first).
 */
export function registerOpsRoutes(app: FastifyInstance, opts: OpsRoutesOptions): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const open = { authed: false } as const;
  r.get(
    '/healthz',
    { schema: { summary: 'The process answers', response: { 200: jsonResponse('alive', z.object({ status: z.literal('ok') })), ...errorResponses([], open) } } },
    async () => ({ status: 'ok' as const }),
  );
  r.get(
    '/readyz',
    {
      schema: {
        summary: opts.readinessSummary,
        response: {
          ...errorResponses([], open),
          200: jsonResponse('ready: every check passed', readinessAnswer),
          // A check failing answers its report; a server that is closing answers the error body.
          503: jsonResponse('not ready (the report names the failed checks) | UNAVAILABLE', z.union([readinessAnswer, errorBodySchema])),
        },
      },
    },
    async (_request, reply) => {
      const report = await runReadiness(opts.readiness);
      return reply.status(report.ready ? 200 : 503).send({ status: report.ready ? 'ready' : 'not_ready', checks: report.checks });
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
    { schema: { summary: 'This OpenAPI document (browsable at /docs)', response: { 200: jsonResponse('OpenAPI 3.1', z.looseObject({ openapi: z.string() })), ...errorResponses([], open) } } },
    async () => app.swagger() as { openapi: string },
  );
}
