import type { Bundles } from '../stack/bundles';

/** How big a drill runs: `short` is CI's small load with one fault. */
export type DrillSize = 'short' | 'full';

export interface DrillContext {
  readonly size: DrillSize;
  readonly bundles: Bundles;
  /** `tools/infra/infra env` exports. */
  readonly infraEnv: Record<string, string>;
  readonly log: (line: string) => void;
}

/** One drill: what it needs, the fault it injects, and its verdict (true = PASS). */
export interface Drill {
  readonly name: string;
  readonly summary: string;
  /** `redis`: single-node infra; `scylla3`: the 3-node Cassandra cluster. */
  readonly needs: 'redis' | 'scylla3';
  run(ctx: DrillContext): Promise<boolean>;
}
