import type { FastifyInstance } from 'fastify';
import type { ServiceMetrics } from '../metrics/service-metrics';
import type { ReadinessCheck } from './readiness';
import { runReadiness } from './readiness';

export interface OpsRoutesOptions {
  readonly readiness: readonly ReadinessCheck[];
  readonly metrics: ServiceMetrics;
  /** The service's OpenAPI document. */
  readonly openapi: object;
}

/**
 * Unauthenticated operator routes: `/healthz` (the process answers), `/readyz` (every real check;
 * 503 with details when any fails), `/metrics` (Prometheus text), `/openapi.json`.
 */
export function registerOpsRoutes(app: FastifyInstance, opts: OpsRoutesOptions): void {
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    const report = await runReadiness(opts.readiness);
    return reply.status(report.ready ? 200 : 503).send({ status: report.ready ? 'ready' : 'not_ready', checks: report.checks });
  });
  app.get('/metrics', async (_request, reply) => {
    const text = await opts.metrics.registry.metrics();
    return reply.type(opts.metrics.registry.contentType).send(text);
  });
  app.get('/openapi.json', async () => opts.openapi);
}
