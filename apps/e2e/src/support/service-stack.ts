import type { QimClientOptions } from '@qim/client';
import { QimClient } from '@qim/client';
import net from 'node:net';
import { serviceEntries } from './build-services';
import { TOKEN, runEnv } from './e2e-env';
import { ServiceProcess, runToExit } from './service-process';

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/**
 * One isolated deployment for a spec: the bundles of the build targets, topics created by the
 * explicit step, writer and mailbox started as child processes. Services can be stopped, killed and
 * started again. Specs call them through `client()` (@qim/client).
 */
export class ServiceStack {
  readonly env: Record<string, string>;
  private entries = serviceEntries();
  writer: ServiceProcess | null = null;
  mailbox: ServiceProcess | null = null;
  private ports = { writer: 0, mailbox: 0 };

  constructor(overrides: Record<string, string> = {}) {
    this.env = runEnv(overrides);
  }

  get writerUrl(): string {
    return `http://127.0.0.1:${this.ports.writer}`;
  }

  get mailboxUrl(): string {
    return `http://127.0.0.1:${this.ports.mailbox}`;
  }

  /**
   * The typed client of this deployment acting as `tenant` (and `user`), with the run's token and
   * the client's default retries (transport failures and 503, same request). `options` override,
   * e.g. `{ retry: NO_RETRY }` to see a 503 as `QimUnavailableError`, or another `writerUrl`.
   */
  client(tenant?: string, user?: string, options: Partial<QimClientOptions> = {}): QimClient {
    return new QimClient({ writerUrl: this.writerUrl, mailboxUrl: this.mailboxUrl, token: TOKEN, tenantId: tenant, userId: user, ...options });
  }

  get entry(): { writer: string; mailbox: string } {
    return this.entries;
  }

  async createTopics(): Promise<void> {
    const r = await runToExit('create-topics', this.entries.mailbox, this.env, ['create-topics']);
    if (r.exit.code !== 0) throw new Error(`create-topics failed:\n${r.output}`);
  }

  async startWriter(): Promise<void> {
    this.ports.writer ||= await freePort();
    this.writer = new ServiceProcess('writer', this.entries.writer, { ...this.env, QIM_HTTP_HOST: '127.0.0.1', QIM_HTTP_PORT: String(this.ports.writer) });
    await this.writer.waitReady(`http://127.0.0.1:${this.ports.writer}/readyz`);
  }

  async startMailbox(overrides: Record<string, string> = {}): Promise<void> {
    const mailbox = await this.launchMailbox(overrides);
    await mailbox.waitReady(`http://127.0.0.1:${this.ports.mailbox}/readyz`);
  }

  /** Starts the mailbox (environment `overrides` on top of the run's) without waiting for readiness. */
  async launchMailbox(overrides: Record<string, string> = {}): Promise<ServiceProcess> {
    this.ports.mailbox ||= await freePort();
    this.mailbox = new ServiceProcess('mailbox', this.entries.mailbox, { ...this.env, ...overrides, QIM_HTTP_HOST: '127.0.0.1', QIM_HTTP_PORT: String(this.ports.mailbox) });
    return this.mailbox;
  }

  /** The mailbox's /readyz answer, with the token (so with every check's detail). */
  async mailboxReadiness(): Promise<{ status: number; body: string }> {
    const r = await fetch(`http://127.0.0.1:${this.ports.mailbox}/readyz`, { headers: { authorization: `Bearer ${TOKEN}` } });
    return { status: r.status, body: await r.text() };
  }

  /** A further writer process on its own port (same deployment), for concurrency checks: `client(t, u, { writerUrl: url })`. */
  async extraWriter(): Promise<{ process: ServiceProcess; url: string }> {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const p = new ServiceProcess('writer-2', this.entries.writer, { ...this.env, QIM_HTTP_HOST: '127.0.0.1', QIM_HTTP_PORT: String(port) });
    await p.waitReady(`${url}/readyz`);
    return { process: p, url };
  }

  async up(): Promise<this> {
    await this.createTopics();
    await this.startWriter();
    await this.startMailbox();
    return this;
  }

  async down(): Promise<void> {
    await Promise.all([this.writer?.stop('SIGTERM'), this.mailbox?.stop('SIGTERM')]);
  }
}
