import net from 'node:net';
import { buildServices } from './build-services';
import { runEnv } from './e2e-env';
import { ServiceClient } from './http-client';
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
 * One isolated deployment for a spec: bundles built, topics created by the explicit step, writer and
 * mailbox started as child processes. Services can be stopped, killed and started again.
 */
export class ServiceStack {
  readonly env: Record<string, string>;
  private entries = buildServices();
  writer: ServiceProcess | null = null;
  mailbox: ServiceProcess | null = null;
  private ports = { writer: 0, mailbox: 0 };

  constructor(overrides: Record<string, string> = {}) {
    this.env = runEnv(overrides);
  }

  get writerApi(): ServiceClient {
    return new ServiceClient(`http://127.0.0.1:${this.ports.writer}`);
  }

  get mailboxApi(): ServiceClient {
    return new ServiceClient(`http://127.0.0.1:${this.ports.mailbox}`);
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

  /** The mailbox's /readyz answer. */
  async mailboxReadiness(): Promise<{ status: number; body: string }> {
    const r = await fetch(`http://127.0.0.1:${this.ports.mailbox}/readyz`);
    return { status: r.status, body: await r.text() };
  }

  /** A further writer process on its own port (same deployment), for concurrency checks. */
  async extraWriter(): Promise<{ process: ServiceProcess; api: ServiceClient }> {
    const port = await freePort();
    const p = new ServiceProcess('writer-2', this.entries.writer, { ...this.env, QIM_HTTP_HOST: '127.0.0.1', QIM_HTTP_PORT: String(port) });
    await p.waitReady(`http://127.0.0.1:${port}/readyz`);
    return { process: p, api: new ServiceClient(`http://127.0.0.1:${port}`) };
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
