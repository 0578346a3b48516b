/** The kinds of bookkeeping rows the dispatch GC reschedules. */
export type GcFactKind = 'chunk' | 'source' | 'observation' | 'progress' | 'completed';

/**
 * One durable GC step, reported after it happened: the marker LWT, its mirror on the completed
 * index, each phase move, and per fact the LWT lock and the whole-row TTL rewrite.
 */
export type GcStep =
  | { readonly step: 'mark' | 'mirror' | 'phase1' | 'phase2'; readonly dispatchId: string }
  | { readonly step: 'lock' | 'rewrite'; readonly kind: GcFactKind; readonly dispatchId: string };

/**
 * Internal fault-injection seam: called after every durable GC step. A hook that throws aborts the
 * pass exactly there (a simulated crash); the next pass must resume to the same end state with the
 * same deadline. Production passes none.
 */
export type GcStepHook = (step: GcStep) => void | Promise<void>;
