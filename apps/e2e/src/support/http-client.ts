import { TOKEN } from './e2e-env';

export interface Answer {
  readonly status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly body: any;
}

/** A tiny JSON client for one service base URL, acting as `(tenant, user)` with the service token. */
export class ServiceClient {
  constructor(readonly base: string) {}

  async call(method: string, path: string, tenant: string, user: string | null, body?: unknown): Promise<Answer> {
    const headers: Record<string, string> = { authorization: `Bearer ${TOKEN}`, 'x-qim-tenant': tenant };
    if (user) headers['x-qim-user'] = user;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const r = await fetch(`${this.base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await r.text();
    return { status: r.status, body: text.length > 0 ? JSON.parse(text) : null };
  }
}

/** Polls `probe` every `intervalMs` until it returns true (or fails after `timeoutMs` with `what`). */
export async function eventually(what: string, probe: () => Promise<boolean>, timeoutMs = 60_000, intervalMs = 300): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await probe()) return;
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  throw new Error(`timed out waiting for: ${what}`);
}
