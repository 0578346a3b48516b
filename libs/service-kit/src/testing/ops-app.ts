import fastify from 'fastify';
import type { FastifyInstance } from 'fastify';
import { installErrorHandler } from '../http/error-handler';
import { installRouteSchemas } from '../http/openapi';
import { registerOpsRoutes } from '../http/ops-routes';
import type { ReadinessCheck } from '../http/readiness';
import { ServiceMetrics } from '../metrics/service-metrics';

/** Two valid service tokens of the test app (a rotation in progress). */
export const TOKEN = 'ops-test-token-0123456789';
export const NEXT = 'ops-next-token-9876543210';
/** The headers of a request that presents `TOKEN` (the detailed `/readyz` answer). */
export const WITH_TOKEN: Readonly<Record<string, string>> = Object.freeze({ authorization: `Bearer ${TOKEN}` });

/** A Fastify app with only the ops routes over `readiness` (specs of this library). */
export async function opsApp(readiness: readonly ReadinessCheck[], extra: { now?: () => number } = {}): Promise<FastifyInstance> {
  const app = fastify({ logger: false });
  await app.register(async (scope) => {
    installErrorHandler(scope);
    await installRouteSchemas(scope, { title: 'ops', version: '0.0.1' });
    registerOpsRoutes(scope, { readiness, tokens: [TOKEN, NEXT], metrics: new ServiceMetrics('ops', false), readinessSummary: 'test checks', ...extra });
  });
  await app.ready();
  return app;
}
