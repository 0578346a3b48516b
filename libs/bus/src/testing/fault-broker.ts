import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const INFRA = resolve(__dirname, '../../../../tools/infra/infra');

/** Where a fault broker lives: its own state dir under `.infra/` and its own ports. */
export interface FaultBrokerPlace {
  /** Folder name under the infra state dir (default `kafka-fault`). */
  readonly name: string;
  readonly port: number;
  readonly controllerPort: number;
}

/** The default fault broker (`tools/infra/infra kafka-fault`, 127.0.0.1:19192). */
export const DEFAULT_FAULT_BROKER: FaultBrokerPlace = { name: 'kafka-fault', port: 19_192, controllerPort: 19_193 };

/**
 * A separate Kafka broker run by `tools/infra/infra kafka-fault` for fault tests (its own state dir
 * and ports), so pausing or killing it never disturbs the broker other tests share. Specs that run in
 * parallel workers use different places, so one spec's kill never lands in another's test. Every
 * action goes through the infra script, which signals only the pid it started.
 */
export function faultBrokerAt(place: FaultBrokerPlace = DEFAULT_FAULT_BROKER) {
  const env = {
    ...process.env,
    QIM_INFRA_KAFKA_FAULT_STATE_DIR: resolve(__dirname, '../../../../.infra', place.name),
    QIM_INFRA_KAFKA_FAULT_PORT: String(place.port),
    QIM_INFRA_KAFKA_FAULT_CONTROLLER_PORT: String(place.controllerPort),
  };
  const action = async (name: string): Promise<void> => {
    await run(INFRA, ['kafka-fault', name], { timeout: 300_000, env });
  };
  return {
    /** Starts the fault broker if needed (idempotent; waits for real readiness) and returns its address. */
    async up(): Promise<string[]> {
      const { stdout } = await run(INFRA, ['kafka-fault', 'up'], { timeout: 300_000, env });
      const m = /QIM_KAFKA_FAULT_BROKERS=(\S+)/.exec(stdout);
      if (!m?.[1]) throw new Error(`infra kafka-fault up printed no address: ${stdout}`);
      return m[1].split(',');
    },
    /** SIGSTOP: connections stay open, requests go unanswered (ambiguous produces). */
    pause: (): Promise<void> => action('pause'),
    /** SIGCONT: the broker processes what it received while paused. */
    resume: (): Promise<void> => action('resume'),
    /** SIGKILL without restart. */
    kill: (): Promise<void> => action('kill'),
    /** SIGKILL (if running) and start again on the same data; resolves once it is ready. */
    restart: (): Promise<void> => action('restart'),
    /** Stops it (only the pid it started). */
    down: (): Promise<void> => action('down'),
  };
}

/** The default fault broker. */
export const faultBroker = faultBrokerAt();
