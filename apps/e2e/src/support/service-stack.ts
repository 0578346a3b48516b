import type { QimClientOptions } from '@qim/client';
import { QimClient } from '@qim/client';
import type { Instance, ServiceProcess } from '@qim/service-stack';
import { Deployment } from '@qim/service-stack';
import { serviceEntries } from './build-services';
import { TOKEN, runEnv } from './e2e-env';

/**
 * One isolated deployment for a spec (a `Deployment` of @qim/service-stack): the bundles of the
 * build targets, topics created by the explicit step, writer and mailbox started as child
 * processes. Services can be stopped, killed and started again on their ports. Specs call them
 * through `client()` (@qim/client).
 */
export class ServiceStack {
  readonly env: Record<string, string>;
  private readonly entries = serviceEntries();
  private readonly deployment: Deployment;
  private readonly started: { writer?: Instance; mailbox?: Instance } = {};

  constructor(overrides: Record<string, string> = {}) {
    this.env = runEnv(overrides);
    this.deployment = new Deployment({ entries: this.entries, env: this.env });
  }

  get writer(): ServiceProcess | null {
    return this.started.writer?.process ?? null;
  }

  get mailbox(): ServiceProcess | null {
    return this.started.mailbox?.process ?? null;
  }

  get writerUrl(): string {
    return this.started.writer?.url ?? 'http://127.0.0.1:0';
  }

  get mailboxUrl(): string {
    return this.started.mailbox?.url ?? 'http://127.0.0.1:0';
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
    await this.deployment.createTopics();
  }

  async startWriter(): Promise<void> {
    this.started.writer = await this.deployment.instance('writer', 'writer');
    await this.deployment.start(this.started.writer);
  }

  async startMailbox(overrides: Record<string, string> = {}): Promise<void> {
    const mailbox = await this.launchMailbox(overrides);
    await mailbox.waitReady(`${this.mailboxUrl}/readyz`);
  }

  /** Starts the mailbox (environment `overrides` on top of the run's) without waiting for readiness. */
  async launchMailbox(overrides: Record<string, string> = {}): Promise<ServiceProcess> {
    this.started.mailbox = await this.deployment.instance('mailbox', 'mailbox');
    return this.deployment.launch(this.started.mailbox, overrides);
  }

  /** The mailbox's /readyz answer, with the token (so with every check's detail). */
  async mailboxReadiness(): Promise<{ status: number; body: string }> {
    const r = await fetch(`${this.mailboxUrl}/readyz`, { headers: { authorization: `Bearer ${TOKEN}` } });
    return { status: r.status, body: await r.text() };
  }

  /** A further writer process on its own port (same deployment), for concurrency checks: `client(t, u, { writerUrl: url })`. */
  async extraWriter(): Promise<{ process: ServiceProcess; url: string }> {
    const inst = await this.deployment.add('writer', `writer-${this.deployment.of('writer').length + 1}`);
    return { process: inst.process!, url: inst.url };
  }

  async up(): Promise<this> {
    await this.createTopics();
    await this.startWriter();
    await this.startMailbox();
    return this;
  }

  /** Stops the writer and the mailbox (SIGTERM) and waits for their exits. */
  async down(): Promise<void> {
    await Promise.all([this.writer?.stop('SIGTERM'), this.mailbox?.stop('SIGTERM')]);
  }
}
