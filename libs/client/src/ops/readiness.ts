import type { HttpTransport } from '../http/http-transport';
import { NO_RETRY } from '../http/retry-policy';
import type { Readiness } from '../model/ops-model';
import { JsonReader } from '../wire/json-reader';

/**
 * `GET /readyz` with the service token (the route answers without one too, but then only the
 * status): 200 ready, 503 not ready, both answered as a value with every check's details (none in
 * a public answer). Not retried: a probe reports what it saw. Unreachable → `QimTransportError`.
 */
export async function readiness(http: HttpTransport, signal?: AbortSignal): Promise<Readiness> {
  const a = await http.call({ method: 'GET', path: '/readyz', auth: true, accept: [503], retry: NO_RETRY, signal });
  const r = new JsonReader(a.body, 'readyz', a.call, a.status);
  const checks: Record<string, { ok: boolean; detail?: unknown }> = {};
  if (r.has('checks')) {
    const c = r.object('checks');
    for (const name of Object.keys(c.raw)) {
      const check = c.object(name);
      checks[name] = check.has('detail') ? { ok: check.boolean('ok'), detail: check.raw['detail'] } : { ok: check.boolean('ok') };
    }
  }
  return { ready: a.status === 200 && r.string('status') === 'ready', status: a.status, checks };
}
