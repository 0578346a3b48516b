import type { CheckOptions } from '../checker/checker';
import type { DrillSize } from './drill';

export interface Shape {
  readonly conversations: number;
  readonly stableUsers: number;
  readonly check: CheckOptions;
}

/** The load of a drill by size: CI's short one, and the full one. */
export function shapeOf(size: DrillSize, over: Partial<CheckOptions['load']> = {}): Shape {
  const short = size === 'short';
  return {
    conversations: short ? 3 : 8,
    stableUsers: short ? 4 : 10,
    check: {
      load: {
        sends: short ? 90 : 1200,
        concurrency: short ? 3 : 6,
        duplicateRate: 0.25,
        conflictRate: 0.05,
        churnRounds: short ? 1 : 4,
        sendRounds: 6,
        pauseMs: short ? 30 : 10,
        ...over,
      },
      quiescenceMs: 120_000,
      pagedLimit: 3,
      largeLimit: 1000,
    },
  };
}
