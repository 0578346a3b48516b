import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request as the scripted server received it. */
export interface ScriptedRequest {
  readonly method: string;
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  readonly headers: http.IncomingHttpHeaders;
  /** The parsed JSON body, or null without one. */
  readonly body: unknown;
  /** When the server had read the request (ms since epoch, `Date.now()`). */
  readonly at: number;
}

/** What to answer: a status with a JSON body (and headers), or `drop` to reset the connection without an answer. */
export type ScriptedReply = { readonly status: number; readonly body?: unknown; readonly headers?: Readonly<Record<string, string>> } | { readonly drop: true };

/** Computes the reply; `gone` aborts when the client disconnects (a long poll given up). */
export type ScriptedHandler = (request: ScriptedRequest, gone: AbortSignal) => ScriptedReply | Promise<ScriptedReply>;

interface Route {
  readonly method: string;
  readonly path: string | RegExp;
  readonly handler: ScriptedHandler;
}

/**
 * A real HTTP server on 127.0.0.1 (node:http) answering what a test scripts per route, and recording
 * every request it received. For testing HTTP clients against exact status codes, bodies, dropped
 * connections and held (long-polled) requests. Unscripted routes answer 404 `NOT_FOUND`.
 */
export class ScriptedServer {
  readonly requests: ScriptedRequest[] = [];
  private readonly routes: Route[] = [];

  private constructor(private readonly server: http.Server) {}

  static async start(): Promise<ScriptedServer> {
    const server = http.createServer();
    const s = new ScriptedServer(server);
    server.on('request', (req, res) => void s.serve(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return s;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /**
   * Scripts `method path`: a handler, or a list of replies given in order (the last one repeats).
   * A later script of the same route replaces the earlier one.
   */
  on(method: string, path: string | RegExp, script: ScriptedHandler | readonly ScriptedReply[]): this {
    let handler: ScriptedHandler;
    if (typeof script === 'function') handler = script;
    else {
      const queue = [...script];
      if (queue.length === 0) throw new Error('a script needs at least one reply');
      handler = () => (queue.length > 1 ? queue.shift()! : queue[0]!);
    }
    const same = this.routes.findIndex((r) => r.method === method && String(r.path) === String(path));
    if (same >= 0) this.routes.splice(same, 1);
    this.routes.push({ method, path, handler });
    return this;
  }

  /** The recorded requests of `method` whose path matches. */
  requestsTo(method: string, path: string | RegExp): ScriptedRequest[] {
    return this.requests.filter((r) => r.method === method && matches(path, r.path));
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async serve(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://local');
    const request: ScriptedRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: req.headers,
      body: text.length > 0 ? JSON.parse(text) : null,
      at: Date.now(),
    };
    this.requests.push(request);
    const gone = new AbortController();
    res.on('close', () => gone.abort());
    const route = this.routes.find((r) => r.method === request.method && matches(r.path, request.path));
    const reply: ScriptedReply = route
      ? await route.handler(request, gone.signal)
      : { status: 404, body: { code: 'NOT_FOUND', message: `no route ${request.method} ${request.path}` } };
    if (res.destroyed) return;
    if ('drop' in reply) {
      req.socket.destroy();
      return;
    }
    const body = reply.body === undefined ? '' : typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
    res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
    res.end(body);
  }
}

function matches(path: string | RegExp, actual: string): boolean {
  return typeof path === 'string' ? path === actual : path.test(actual);
}
