import type { FastifyInstance } from 'fastify';
import type { ServiceMetrics } from './service-metrics';

/** Observes every response's latency under its route pattern (never the raw URL: bounded labels). */
export function installRequestMetrics(app: FastifyInstance, metrics: ServiceMetrics): void {
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.requestSeconds.observe({ method: request.method, route, status: String(reply.statusCode) }, reply.elapsedTime / 1000);
  });
}
