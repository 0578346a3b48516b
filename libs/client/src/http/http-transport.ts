import { randomUUID } from 'node:crypto';
import { errorOfAnswer } from '../errors/error-of-answer';
import type { CallSite } from '../errors/qim-error';
import { QimAbortedError, QimArgumentError, QimProtocolError, QimTransportError } from '../errors/qim-error';
import type { Exchange, OpenedStream, StreamOpener } from './exchange';
import { AttemptTimeout, DEFAULT_MAX_SOCKETS, fetchExchange, nodeExchange, nodeStreamOpener } from './exchange';
import type { RetryPolicy } from './retry-policy';
import { DEFAULT_MAX_RETRY_AFTER_MS, retryAfterMsOf, retryDelayMs, sleep } from './retry-policy';

/** One service endpoint as the client reaches it. */
export interface TransportOptions {
  /** Base URL of the service, e.g. `http://127.0.0.1:18080`. */
  readonly baseUrl: string;
  /** The service token sent as `Authorization: Bearer` on `/v1` calls. */
  readonly token: string;
  /** Bound of one attempt (ms), added to the server-side wait of a long poll. */
  readonly timeoutMs: number;
  readonly retry: RetryPolicy;
  /** A fetch to use instead of the default `node:http` transport (tests, other runtimes). */
  readonly fetch?: typeof fetch;
  /** Sockets per origin of the default transport (default 256; ignored with `fetch`). */
  readonly maxSockets?: number;
}

export interface CallSpec {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  readonly path: string;
  readonly query?: Readonly<Record<string, string | number | undefined>>;
  /** Extra headers (the acting tenant and user). */
  readonly headers?: Readonly<Record<string, string>>;
  /** JSON body. */
  readonly body?: unknown;
  /** False for the unauthenticated ops routes (`/readyz`). */
  readonly auth: boolean;
  /** Statuses answered as a value instead of an error (readiness: 503 is an answer). */
  readonly accept?: readonly number[];
  /** Added to `timeoutMs` for this call (a long poll's server-side wait). */
  readonly extraTimeoutMs?: number;
  /** Bound of each attempt of this call instead of the transport's `timeoutMs` (a send's budget). */
  readonly attemptTimeoutMs?: number;
  readonly retry?: RetryPolicy;
  readonly signal?: AbortSignal;
}

export interface Answer {
  readonly status: number;
  readonly body: unknown;
  readonly call: CallSite;
}

function pathWithQuery(spec: CallSpec): string {
  if (spec.query === undefined) return spec.path;
  let s = '';
  for (const k in spec.query) {
    const v = spec.query[k];
    if (v !== undefined) s += `${s.length === 0 ? '?' : '&'}${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`;
  }
  return `${spec.path}${s}`;
}

type Attempt =
  { kind: 'answer'; status: number; text: string; retryAfter: string | null; requestId: string } | { kind: 'failed'; cause: unknown; timedOut: boolean };

/** Answers that ask the client to come back later (with `Retry-After`). */
const RETRY_LATER: ReadonlySet<number> = new Set([503, 429]);

/**
 * JSON over HTTP with one request id per call (`x-request-id`), a bound per attempt, and retries of
 * transport failures and 503/429 answers with the same request (same body, so a send keeps its
 * client message id), each after the server's `Retry-After` when it gives one (never sooner; one
 * beyond the policy's `maxRetryAfterMs` ends the call with that wait on the error). Error statuses
 * become typed errors carrying the service's code; an answer that is not JSON is a
 * `QimProtocolError`. A caller's abort is never retried: it ends the call with `QimAbortedError`.
 */
export class HttpTransport {
  private readonly base: string;
  private readonly exchange: Exchange;
  private streamOpener: StreamOpener | null = null;

  constructor(private readonly options: TransportOptions) {
    this.base = options.baseUrl.replace(/\/+$/, '');
    this.exchange = options.fetch ? fetchExchange(this.base, options.fetch) : nodeExchange(this.base, options.maxSockets ?? DEFAULT_MAX_SOCKETS);
  }

  get baseUrl(): string {
    return this.base;
  }

  async call(spec: CallSpec): Promise<Answer> {
    const policy = spec.retry ?? this.options.retry;
    const path = pathWithQuery(spec);
    const requestId = randomUUID();
    const headers: Record<string, string> = { accept: 'application/json', 'x-request-id': requestId, ...spec.headers };
    if (spec.auth) headers['authorization'] = `Bearer ${this.options.token}`;
    if (spec.body !== undefined) headers['content-type'] = 'application/json';
    const body = spec.body === undefined ? undefined : JSON.stringify(spec.body);
    // The exchange sends these headers as they are (no copy per attempt).
    if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
    for (let attempt = 1; ; attempt++) {
      const a = await this.attempt(spec, path, headers, body, requestId);
      const call: CallSite = { method: spec.method, path, requestId: a.kind === 'answer' ? a.requestId : requestId };
      const last = attempt >= policy.attempts;
      if (a.kind === 'failed') {
        if (last)
          throw new QimTransportError(
            `${spec.method} ${this.base}${path} failed after ${attempt} attempt(s): ${describe(a.cause)}`,
            a.timedOut,
            attempt,
            call,
            a.cause,
          );
        await this.pause(retryDelayMs(policy, attempt, null), spec.signal, call);
        continue;
      }
      const accepted = (spec.accept ?? []).includes(a.status);
      const retryAfterMs = RETRY_LATER.has(a.status) && !accepted ? retryAfterMsOf(a.retryAfter) : null;
      if (
        RETRY_LATER.has(a.status) &&
        !accepted &&
        !last &&
        (retryAfterMs === null || retryAfterMs <= (policy.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS))
      ) {
        await this.pause(retryDelayMs(policy, attempt, retryAfterMs), spec.signal, call);
        continue;
      }
      const parsed = parseJson(a.text);
      const ok = (a.status >= 200 && a.status < 300) || accepted;
      if (!ok) {
        const err = errorOfAnswer(a.status, parsed.ok ? parsed.value : null, call);
        err.retryAfterMs = retryAfterMs;
        throw err;
      }
      if (!parsed.ok) throw new QimProtocolError(`${spec.method} ${path} answered ${a.status} with a body that is not JSON`, a.status, call);
      return { status: a.status, body: parsed.value, call };
    }
  }

  /**
   * Opens a GET answered by a stream of events (`text/event-stream`), once (no retries: the caller
   * reconnects from its own cursor). A status other than 200 is read whole and thrown as the typed
   * error of its body, as `call` does; no answer head within the transport's bound → `QimTransportError`.
   */
  async openStream(spec: Pick<CallSpec, 'path' | 'query' | 'headers' | 'signal'>): Promise<{ stream: OpenedStream; call: CallSite }> {
    if (this.options.fetch) throw new QimArgumentError('a streamed sync needs the default node:http transport (the client was given a fetch)');
    this.streamOpener ??= nodeStreamOpener(this.base);
    const path = pathWithQuery({ ...spec, method: 'GET', auth: true });
    const requestId = randomUUID();
    const headers = { accept: 'text/event-stream', 'x-request-id': requestId, ...spec.headers, authorization: `Bearer ${this.options.token}` };
    const site: CallSite = { method: 'GET', path, requestId };
    let stream: OpenedStream;
    try {
      stream = await this.streamOpener(path, headers, this.options.timeoutMs, spec.signal);
    } catch (err) {
      if (spec.signal?.aborted) throw aborted(site, spec.signal.reason);
      throw new QimTransportError(`GET ${this.base}${path} failed: ${describe(err)}`, err instanceof AttemptTimeout, 1, site, err);
    }
    const call: CallSite = { ...site, requestId: stream.header('x-request-id') ?? requestId };
    if (stream.status !== 200) {
      let text = '';
      for await (const chunk of stream.chunks) text += chunk;
      const parsed = parseJson(text);
      const err = errorOfAnswer(stream.status, parsed.ok ? parsed.value : null, call);
      err.retryAfterMs = RETRY_LATER.has(stream.status) ? retryAfterMsOf(stream.header('retry-after')) : null;
      throw err;
    }
    return { stream, call };
  }

  /** Waits before the next attempt; the caller's abort ends the call. */
  private async pause(ms: number, signal: AbortSignal | undefined, call: CallSite): Promise<void> {
    try {
      await sleep(ms, signal);
    } catch (reason) {
      throw aborted(call, reason);
    }
  }

  private async attempt(spec: CallSpec, path: string, headers: Record<string, string>, body: string | undefined, requestId: string): Promise<Attempt> {
    const timeoutMs = (spec.attemptTimeoutMs ?? this.options.timeoutMs) + (spec.extraTimeoutMs ?? 0);
    try {
      const r = await this.exchange({ method: spec.method, path, headers, body, timeoutMs, signal: spec.signal });
      return {
        kind: 'answer',
        status: r.status,
        text: r.text,
        retryAfter: r.header('retry-after'),
        requestId: r.header('x-request-id') ?? String(headers['x-request-id']),
      };
    } catch (err) {
      if (spec.signal?.aborted) throw aborted({ method: spec.method, path, requestId }, spec.signal.reason);
      return { kind: 'failed', cause: err, timedOut: err instanceof AttemptTimeout };
    }
  }
}

function aborted(call: CallSite, reason: unknown): QimAbortedError {
  const why = reason instanceof Error ? reason.message : String(reason);
  return new QimAbortedError(`${call.method} ${call.path} aborted by the caller: ${why}`, call, reason);
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause instanceof Error ? `: ${err.cause.message}` : '';
  return `${err.message}${cause}`;
}
