import type { Instance } from '@qim/service-stack';
import { Deployment as StackDeployment, SERVICE_NODE_FLAGS, isolatedEnv, workspaceRoot } from '@qim/service-stack';
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Bundles } from './bundles';

export { freePort } from '@qim/service-stack';
export type { Instance, ServiceKind } from '@qim/service-stack';

export const DRILL_TOKEN = 'drill-service-token-0123456789abcdef';

/**
 * One isolated QIM deployment for a drill (a `Deployment` of @qim/service-stack, like
 * tools/scenario/qim-local but with its own Redis namespace, topics and keyspace): any number of
 * writer and mailbox instances on fixed 127.0.0.1 ports, each killable and restartable on the same
 * port, run with the production node flags; each process logs to `.infra/drills/<run>/<name>.log`.
 */
export class Deployment extends StackDeployment {
  readonly logDir: string;

  constructor(
    bundles: Bundles,
    base: Record<string, string>,
    readonly run: string = randomBytes(4).toString('hex'),
  ) {
    const logDir = path.join(workspaceRoot, '.infra', 'drills', run);
    mkdirSync(logDir, { recursive: true });
    super({
      entries: bundles,
      env: { ...isolatedEnv('qimdrill', run, DRILL_TOKEN), QIM_SYNC_MAX_LIMIT: '1000', QIM_LOG_LEVEL: 'warn', ...base },
      logDir,
      tailChars: 8_000,
      nodeFlags: SERVICE_NODE_FLAGS,
      readyTimeoutMs: 120_000,
      runTimeoutMs: 90_000,
      instanceEnv: (inst: Instance): Record<string, string> => (inst.kind === 'writer' ? { QIM_INSTANCE_NAME: inst.name } : {}),
    });
    this.logDir = logDir;
  }
}
