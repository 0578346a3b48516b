import path from 'node:path';
import { freePort } from './free-port';
import type { RunResult, ServiceProcessOptions } from './service-process';
import { ServiceProcess, runToExit } from './service-process';

export type ServiceKind = 'writer' | 'mailbox';

/** The bundles a deployment starts: the two services, and the command bundles it runs to completion (`admin`, `cli`). */
export interface Entries {
  readonly writer: string;
  readonly mailbox: string;
  readonly admin?: string;
  readonly cli?: string;
}

/** One named service instance of a deployment: a fixed 127.0.0.1 port, restartable on it. */
export interface Instance {
  readonly name: string;
  readonly kind: ServiceKind;
  readonly port: number;
  readonly url: string;
  /** The running (or last) process of this instance, null before its first start. */
  process: ServiceProcess | null;
}

export interface DeploymentOptions {
  readonly entries: Entries;
  /** The environment every process of the deployment gets (`isolatedEnv` plus the servers, usually). */
  readonly env: Record<string, string>;
  /** When set, each process appends its output to `<logDir>/<name>.log`. */
  readonly logDir?: string;
  /** Output kept per process (`ServiceProcess.output`), default all of it. */
  readonly tailChars?: number;
  /** Node flags of every process (default none). */
  readonly nodeFlags?: readonly string[];
  /** How long `start` waits for readiness by default (ms). */
  readonly readyTimeoutMs?: number;
  /** How long `runToExit` lets a command run by default (ms). */
  readonly runTimeoutMs?: number;
  /** Environment of one instance on top of the deployment's (e.g. a writer's `QIM_INSTANCE_NAME`). */
  readonly instanceEnv?: (inst: Instance) => Record<string, string>;
}

/**
 * One isolated QIM deployment of the built bundles, for the e2e specs and the drills: topics
 * created by the explicit step, any number of writer and mailbox instances on 127.0.0.1 ports,
 * each stoppable, killable and restartable on the same port.
 */
export class Deployment {
  readonly env: Record<string, string>;
  readonly instances: Instance[] = [];

  constructor(private readonly options: DeploymentOptions) {
    this.env = options.env;
  }

  entry(bundle: keyof Entries): string {
    const e = this.options.entries[bundle];
    if (e === undefined) throw new Error(`no bundle ${bundle} in this deployment`);
    return e;
  }

  private processOptions(name: string): ServiceProcessOptions {
    const { logDir, tailChars, nodeFlags } = this.options;
    return { ...(logDir === undefined ? {} : { logFile: path.join(logDir, `${name}.log`) }), tailChars, nodeFlags };
  }

  /** Runs a command of a bundle to completion (create-topics, a start-up that must refuse, an admin command), `env` on top of the deployment's. */
  runToExit(
    bundle: keyof Entries,
    name: string,
    env: Record<string, string> = {},
    args: readonly string[] = [],
    timeoutMs = this.options.runTimeoutMs ?? 60_000,
  ): Promise<RunResult> {
    return runToExit(name, this.entry(bundle), { ...this.env, ...env }, args, timeoutMs, this.processOptions(name));
  }

  async createTopics(): Promise<void> {
    const r = await this.runToExit('mailbox', 'create-topics', {}, ['create-topics']);
    if (r.code !== 0) throw new Error(`create-topics failed:\n${r.output}`);
  }

  /** The instance named `name`, declared now (on `fixedPort`, or a port reserved now) when it is new; not started. */
  async instance(kind: ServiceKind, name: string, fixedPort?: number): Promise<Instance> {
    const known = this.instances.find((i) => i.name === name);
    if (known) return known;
    const port = fixedPort ?? (await freePort());
    const inst: Instance = { name, kind, port, url: `http://127.0.0.1:${port}`, process: null };
    this.instances.push(inst);
    return inst;
  }

  /** Declares an instance (on `fixedPort`, or a port reserved now) and starts it. */
  async add(kind: ServiceKind, name: string, fixedPort?: number, readyTimeoutMs?: number): Promise<Instance> {
    const inst = await this.instance(kind, name, fixedPort);
    await this.start(inst, readyTimeoutMs);
    return inst;
  }

  /** Starts a process of `inst` on its port (`overrides` on top of the environment, for this start only) without waiting for readiness. */
  launch(inst: Instance, overrides: Record<string, string> = {}): ServiceProcess {
    const env = { ...this.env, ...(this.options.instanceEnv?.(inst) ?? {}), ...overrides, QIM_HTTP_HOST: '127.0.0.1', QIM_HTTP_PORT: String(inst.port) };
    inst.process = new ServiceProcess(inst.name, this.entry(inst.kind), env, this.processOptions(inst.name));
    return inst.process;
  }

  /** (Re)starts an instance on its port and waits until `readyPath` answers 200 (default `/readyz`; `/healthz` for a mailbox expected to refuse a shard). */
  async start(
    inst: Instance,
    readyTimeoutMs = this.options.readyTimeoutMs ?? 60_000,
    readyPath = '/readyz',
    overrides: Record<string, string> = {},
  ): Promise<void> {
    await this.launch(inst, overrides).waitReady(`${inst.url}${readyPath}`, readyTimeoutMs);
  }

  of(kind: ServiceKind): Instance[] {
    return this.instances.filter((i) => i.kind === kind);
  }

  /** SIGTERMs every instance and waits for the exits. */
  async down(): Promise<void> {
    await Promise.all(this.instances.map((i) => i.process?.stop('SIGTERM')));
  }
}
