import http from 'node:http';
import https from 'node:https';

/** One HTTP request of an attempt, the base URL already chosen. */
export interface ExchangeRequest {
  readonly method: string;
  /** Path and query, e.g. `/v1/messages` or `/v1/mailboxes/…/entries?after=1`. */
  readonly path: string;
  /** Sent as they are: with a body, they include its `content-length`. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | undefined;
  /** Bound of the whole exchange (ms): connect, send, and the complete answer. */
  readonly timeoutMs: number;
  /** The caller's abort: the exchange rejects with its reason. */
  readonly signal: AbortSignal | undefined;
}

/** A complete answer (any status). */
export interface Exchanged {
  readonly status: number;
  readonly text: string;
  header(name: string): string | null;
}

/**
 * Sends one request and reads the complete answer. Rejects with `AttemptTimeout` when `timeoutMs`
 * elapses first, with the signal's reason when the caller aborts, and with the network error
 * otherwise (refused, reset, closed before the answer was complete).
 */
export type Exchange = (request: ExchangeRequest) => Promise<Exchanged>;

/** The attempt's own bound elapsed before a complete answer. */
export class AttemptTimeout extends Error {
  constructor(timeoutMs: number, options?: { cause?: unknown }) {
    super(`no complete answer within ${timeoutMs} ms`, options);
    this.name = 'AttemptTimeout';
  }
}

/** Sockets per origin of the default transport (keep-alive, process-wide, like fetch's global dispatcher). */
export const DEFAULT_MAX_SOCKETS = 256;

/**
 * One keep-alive agent per protocol and socket bound, shared by every client of the process (a
 * client made by `as()` and the device clients of a benchmark reuse the same connections). LIFO
 * reuse keeps the busy sockets warm and lets the others reach the server's keep-alive timeout,
 * which Node's agent honours from the `Keep-Alive: timeout=` hint.
 */
const agents = new Map<string, http.Agent>();

function sharedAgent(protocol: 'http:' | 'https:', maxSockets: number): http.Agent {
  const key = `${protocol}${maxSockets}`;
  let agent = agents.get(key);
  if (agent === undefined) {
    const options: http.AgentOptions = { keepAlive: true, maxSockets, maxFreeSockets: Math.min(maxSockets, 256), scheduling: 'lifo' };
    agent = protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
    agents.set(key, agent);
  }
  return agent;
}

/**
 * The default exchange on Node: `node:http`/`node:https` with a shared keep-alive agent of at most
 * `maxSockets` sockets per origin (further requests queue in the agent, their wait inside the
 * attempt's bound). Several times cheaper in CPU per request than Node 20's fetch (undici, web
 * streams, abort signals), which matters when a client process drives hundreds of requests/s.
 */
export function nodeExchange(baseUrl: string, maxSockets: number): Exchange {
  const { request, target, prefix } = nodeTarget(baseUrl, (protocol) => sharedAgent(protocol, maxSockets));
  return (r) =>
    new Promise<Exchanged>((resolve, reject) => {
      if (r.signal?.aborted) return reject(r.signal.reason);
      const req = request({ ...target, method: r.method, path: `${prefix}${r.path}`, headers: r.headers });
      let settled = false;
      const settle = (err: unknown, answer?: Exchanged): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        r.signal?.removeEventListener('abort', onAbort);
        if (answer) resolve(answer);
        else {
          reject(err);
          req.destroy();
        }
      };
      const timer = setTimeout(() => settle(new AttemptTimeout(r.timeoutMs)), r.timeoutMs);
      const onAbort = (): void => settle(r.signal?.reason);
      r.signal?.addEventListener('abort', onAbort, { once: true });
      req.on('error', (err) => settle(err));
      req.on('response', (res) => {
        res.setEncoding('utf8');
        let text = '';
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => settle(null, { status: res.statusCode ?? 0, text, header: (name) => single(res.headers[name]) }));
        res.on('error', (err) => settle(err));
        // A connection closed mid-answer: 'close' without 'end'.
        res.on('close', () => settle(new Error('connection closed before the answer was complete')));
      });
      req.end(r.body);
    });
}

/** Where requests to `baseUrl` go on `node:http`/`node:https`: the request function, its options (over `agent`) and the path prefix. */
function nodeTarget(baseUrl: string, agentFor: (protocol: 'http:' | 'https:') => http.Agent) {
  const base = new URL(baseUrl);
  const protocol = base.protocol === 'https:' ? 'https:' : 'http:';
  return {
    request: protocol === 'https:' ? https.request : http.request,
    target: { protocol, hostname: base.hostname.replace(/^\[|\]$/g, ''), port: base.port, agent: agentFor(protocol) },
    prefix: base.pathname.replace(/\/+$/, ''),
  };
}

function single(v: string | string[] | undefined): string | null {
  if (v === undefined) return null;
  return typeof v === 'string' ? v : (v[0] ?? null);
}

/** An exchange over a given `fetch` (tests, other runtimes); the attempt's bound is an abort signal. */
export function fetchExchange(baseUrl: string, fetchFn: typeof fetch): Exchange {
  const base = baseUrl.replace(/\/+$/, '');
  return async (r) => {
    const timeout = AbortSignal.timeout(r.timeoutMs);
    const signal = r.signal ? AbortSignal.any([r.signal, timeout]) : timeout;
    try {
      const res = await fetchFn(`${base}${r.path}`, { method: r.method, headers: r.headers, body: r.body, signal });
      const text = await res.text();
      return { status: res.status, text, header: (name) => res.headers.get(name) };
    } catch (err) {
      if (r.signal?.aborted) throw r.signal.reason;
      if (timeout.aborted) throw new AttemptTimeout(r.timeoutMs, { cause: err });
      throw err;
    }
  };
}

/** An answer whose body is read as it arrives (a stream of events), with its status and headers. */
export interface OpenedStream {
  readonly status: number;
  header(name: string): string | null;
  /** The body's text chunks as they arrive; ends when the service ends the response. */
  readonly chunks: AsyncIterable<string>;
  /** Closes the connection (the service sees the client gone). */
  close(): void;
}

/** Opens a GET whose answer is a long stream; rejects when no answer head arrives within `timeoutMs`. */
export type StreamOpener = (path: string, headers: Readonly<Record<string, string>>, timeoutMs: number, signal?: AbortSignal) => Promise<OpenedStream>;

/**
 * Streams on `node:http`/`node:https`: each on a connection of its own (an agent without a socket
 * bound, apart from the request pool's, so a device's long stream never waits for a pooled socket
 * nor holds one the requests need).
 */
export function nodeStreamOpener(baseUrl: string): StreamOpener {
  const { request, target, prefix } = nodeTarget(baseUrl, (protocol) =>
    protocol === 'https:' ? new https.Agent({ keepAlive: false }) : new http.Agent({ keepAlive: false }),
  );
  return (path, headers, timeoutMs, signal) =>
    new Promise<OpenedStream>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const req = request({ ...target, method: 'GET', path: `${prefix}${path}`, headers });
      const timer = setTimeout(() => req.destroy(new AttemptTimeout(timeoutMs)), timeoutMs);
      const onAbort = (): void => {
        req.destroy(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      req.once('error', (err) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        reject(signal?.aborted ? signal.reason : err);
      });
      req.once('response', (res) => {
        clearTimeout(timer);
        res.setEncoding('utf8');
        res.once('close', () => signal?.removeEventListener('abort', onAbort));
        resolve({
          status: res.statusCode ?? 0,
          header: (name) => single(res.headers[name.toLowerCase()]),
          chunks: res as AsyncIterable<string>,
          close: () => req.destroy(),
        });
      });
      req.end();
    });
}
