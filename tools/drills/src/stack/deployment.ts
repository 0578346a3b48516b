import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { Bundles } from './bundles';
import { workspaceRoot } from './bundles';
import { ServiceProcess } from './service-process';

export type ServiceKind = 'writer' | 'mailbox';

export const DRILL_TOKEN = 'drill-service-token-0123456789abcdef';

/** A free TCP port on 127.0.0.1 (bound and released). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** One named service instance of a deployment: a fixed port, restartable. */
export interface Instance {
  readonly name: string;
  readonly kind: ServiceKind;
  readonly port: number;
  readonly url: string;
  process: ServiceProcess | null;
}

/**
 * One isolated QIM deployment for a drill (like tools/scenario/qim-local, but with its own Redis
 * namespace, topics and keyspace): topics created by the explicit step, any number of writer and
 * mailbox instances on fixed 127.0.0.1 ports, each killable and restartable on the same port.
 */
export class Deployment {
  readonly env: Record<string, string>;
  readonly instances: Instance[] = [];
  readonly logDir: string;

  constructor(
    private readonly bundles: Bundles,
    base: Record<string, string>,
    readonly run: string = randomBytes(4).toString('hex'),
  ) {
    this.env = {
      QIM_ENV: 'test',
      QIM_STORE_BACKEND: 'redis',
      QIM_SERVICE_TOKEN: DRILL_TOKEN,
      QIM_REDIS_NAMESPACE: `qimdrill-${run}`,
      QIM_KAFKA_CLIENT_ID: `qimdrill-${run}`,
      QIM_TOPIC_MESSAGES: `qimdrill.${run}.messages`,
      QIM_TOPIC_DISPATCH: `qimdrill.${run}.dispatch`,
      QIM_MESSAGES_PARTITIONS: '2',
      QIM_MAILBOX_SHARDS: '2',
      QIM_MAILBOX_EPOCH: '1',
      QIM_RECOVERY_INTERVAL_MS: '500',
      QIM_SEND_DEADLINE_MS: '5000',
      QIM_RECOVERY_GRACE_MS: '6000',
      QIM_LEASE_TTL_MS: '3000',
      QIM_SYNC_MAX_LIMIT: '1000',
      QIM_LOG_LEVEL: 'warn',
      ...base,
    };
    this.logDir = path.join(workspaceRoot, '.infra', 'drills', run);
    mkdirSync(this.logDir, { recursive: true });
  }

  entry(kind: ServiceKind): string {
    return this.bundles[kind];
  }

  /** Runs a command of a bundle to completion (create-topics, a start-up that must refuse, an admin command). */
  async runToExit(kind: keyof Bundles, name: string, env: Record<string, string>, args: readonly string[] = [], timeoutMs = 90_000): Promise<{ code: number | null; signal: string | null; output: string }> {
    const p = new ServiceProcess(name, this.bundles[kind], { ...this.env, ...env }, workspaceRoot, path.join(this.logDir, `${name}.log`), args);
    const timer = setTimeout(() => void p.stop('SIGKILL'), timeoutMs);
    try {
      const exit = await p.exited;
      return { ...exit, output: p.output };
    } finally {
      clearTimeout(timer);
    }
  }

  async createTopics(): Promise<void> {
    const r = await this.runToExit('mailbox', 'create-topics', {}, ['create-topics']);
    if (r.code !== 0) throw new Error(`create-topics failed:\n${r.output}`);
  }

  /** Declares an instance (on `fixedPort`, or a port reserved now) and starts it. */
  async add(kind: ServiceKind, name: string, fixedPort?: number, readyTimeoutMs?: number): Promise<Instance> {
    const port = fixedPort ?? (await freePort());
    const inst: Instance = { name, kind, port, url: `http://127.0.0.1:${port}`, process: null };
    this.instances.push(inst);
    await this.start(inst, readyTimeoutMs);
    return inst;
  }

  /** (Re)starts an instance on its port and waits until `readyPath` answers 200 (default `/readyz`; `/healthz` for a mailbox expected to refuse a shard). */
  async start(inst: Instance, readyTimeoutMs = 120_000, readyPath = '/readyz'): Promise<void> {
    inst.process = new ServiceProcess(inst.name, this.bundles[inst.kind], { ...this.env, QIM_HTTP_HOST: '127.0.0.1', QIM_HTTP_PORT: String(inst.port), ...(inst.kind === 'writer' ? { QIM_INSTANCE_NAME: inst.name } : {}) }, workspaceRoot, path.join(this.logDir, `${inst.name}.log`));
    await inst.process.waitReady(`${inst.url}${readyPath}`, readyTimeoutMs);
  }

  of(kind: ServiceKind): Instance[] {
    return this.instances.filter((i) => i.kind === kind);
  }

  async down(): Promise<void> {
    await Promise.all(this.instances.map((i) => i.process?.stop('SIGTERM')));
  }
}
