import type { Id128 } from '@qim/client';
import { NO_RETRY, QimClient, QimError, QimTransportError } from '@qim/client';

export interface Endpoints {
  readonly writerUrl: string;
  readonly mailboxUrl: string;
  readonly token: string;
  /** Over Node's fetch instead of the client's default node:http transport. */
  readonly fetch?: boolean;
}

/**
 * The benchmark's client of both services, acting as `tenant`: `@qim/client` without retries —
 * every 503 or network error is counted, never hidden — to 127.0.0.1 only (the benchmark never sends
 * traffic off the machine), over the client's default transport (node:http, keep-alive agent shared by
 * the process). Its socket bound is set high: the benchmark bounds what it puts on the wire itself
 * (`WireSlots` for sends, one long poll per device). `timeoutMs` bounds one request (a long poll adds
 * its wait). `.as(user)` acts as one of the tenant's users.
 */
export function benchClient(e: Endpoints, timeoutMs: number, tenant?: Id128): QimClient {
  for (const url of [e.writerUrl, e.mailboxUrl]) {
    const host = new URL(url).hostname;
    if (host !== '127.0.0.1' && host !== 'localhost') throw new Error(`${url}: the benchmark sends traffic to 127.0.0.1 only`);
  }
  return new QimClient({
    writerUrl: e.writerUrl,
    mailboxUrl: e.mailboxUrl,
    token: e.token,
    tenantId: tenant,
    timeoutMs,
    retry: NO_RETRY,
    maxSockets: 4_096,
    ...(e.fetch ? { fetch: globalThis.fetch } : {}),
  });
}

/**
 * The error code of a failed call as the report counts it: status and service code
 * ("503 UNAVAILABLE", with " (admission)" or " (deadline)" when its message says which), or the client's own with the network error's code when there is one
 * ("TRANSPORT ECONNRESET", "TIMEOUT").
 */
export function errorCode(err: unknown): string {
  if (err instanceof QimTransportError) {
    const system = systemCode(err.cause);
    return system === null ? err.code : `${err.code} ${system}`;
  }
  if (err instanceof QimError) {
    // A 503 says why: held at the admission gate and refused, or the send deadline passed (ADR-0023).
    const why = err.status !== 503 ? '' : /not admitted/.test(err.message) ? ' (admission)' : /not finished within/.test(err.message) ? ' (deadline)' : '';
    return err.status === null ? err.code : `${err.status} ${err.code}${why}`;
  }
  const e = err as { code?: string; name?: string } | null;
  return e?.code ?? e?.name ?? 'unknown';
}

/** The first `code` (ECONNRESET, UND_ERR_SOCKET, …) along an error's cause chain. */
function systemCode(err: unknown): string | null {
  for (let e = err, depth = 0; e !== null && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return null;
}
