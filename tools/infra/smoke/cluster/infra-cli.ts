import { execFileSync } from 'node:child_process';
import path from 'node:path';

/** The `tools/infra/infra` entry point of this checkout. */
const INFRA = path.resolve(__dirname, '../../infra');

/**
 * Runs `tools/infra/infra <args…>` and waits for it; its progress goes to this process's stderr.
 * It acts on the state dir of the environment (`QIM_INFRA_STATE_DIR` or the checkout's `.infra`),
 * i.e. on the servers `infra up` started from here. Throws when the command exits non-zero.
 */
export function infra(...args: string[]): void {
  execFileSync(INFRA, args, { stdio: ['ignore', 'ignore', 'inherit'], timeout: 600_000 });
}

/** Polls `probe` every 100 ms until it returns a value other than undefined; throws after `boundMs`. */
export async function until<T>(what: string, boundMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + boundMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      throw new Error(`${what}: not reached within ${boundMs} ms${last ? ` (last error: ${String(last)})` : ''}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
