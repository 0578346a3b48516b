import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const INFRA = resolve(__dirname, '../../../../tools/infra/infra');

/**
 * The separate Kafka broker that `tools/infra/infra kafka-fault` runs for fault tests (its own
 * state dir and port), so pausing or killing it never disturbs the broker other tests share.
 * Every action goes through the infra script, which signals only the pid it started.
 */
export const faultBroker = {
  /** Starts the fault broker if needed (idempotent; waits for real readiness) and returns its address. */
  async up(): Promise<string[]> {
    const { stdout } = await run(INFRA, ['kafka-fault', 'up'], { timeout: 300_000 });
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
};

async function action(name: string): Promise<void> {
  await run(INFRA, ['kafka-fault', name], { timeout: 300_000 });
}
