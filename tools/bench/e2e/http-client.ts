import { Agent, request } from 'node:http';

export interface HttpAnswer {
  readonly status: number;
  /** Parsed JSON body (undefined when empty or not JSON). */
  readonly body: unknown;
}

/** A keep-alive JSON client for one base URL (127.0.0.1 only: the benchmark never leaves the machine). */
export class HttpClient {
  private readonly agent: Agent;
  private readonly base: URL;

  constructor(
    baseUrl: string,
    private readonly token: string,
    maxSockets: number,
  ) {
    this.base = new URL(baseUrl);
    if (this.base.hostname !== '127.0.0.1' && this.base.hostname !== 'localhost') {
      throw new Error(`${baseUrl}: the benchmark sends traffic to 127.0.0.1 only`);
    }
    this.agent = new Agent({ keepAlive: true, maxSockets });
  }

  /** One request; rejects on network errors, on `timeoutMs` and when `signal` aborts. */
  call(method: string, path: string, who: { tenant: string; user?: string }, body?: unknown, timeoutMs = 30_000, signal?: AbortSignal): Promise<HttpAnswer> {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const headers: Record<string, string | number> = { authorization: `Bearer ${this.token}`, 'x-qim-tenant': who.tenant };
    if (who.user) headers['x-qim-user'] = who.user;
    if (payload) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = payload.length;
    }
    return new Promise((resolve, reject) => {
      const req = request(
        { host: this.base.hostname, port: this.base.port, method, path, headers, agent: this.agent, timeout: timeoutMs, ...(signal ? { signal } : {}) },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString();
            let parsed: unknown;
            try {
              parsed = text ? JSON.parse(text) : undefined;
            } catch {
              parsed = undefined;
            }
            resolve({ status: res.statusCode ?? 0, body: parsed });
          });
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(Object.assign(new Error('request timeout'), { code: 'TIMEOUT' })));
      req.on('error', reject);
      req.end(payload);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

/** The error code of a failed call: the answer's `code` (e.g. "503 UNAVAILABLE") or the network error's. */
export function errorCode(a: HttpAnswer | unknown): string {
  if (a && typeof a === 'object' && 'status' in a) {
    const ans = a as HttpAnswer;
    const code = ans.body && typeof ans.body === 'object' && 'code' in ans.body ? String((ans.body as { code: unknown }).code) : '';
    return `${ans.status}${code ? ` ${code}` : ''}`;
  }
  const e = a as { code?: string; name?: string };
  return e?.code ?? e?.name ?? 'unknown';
}
