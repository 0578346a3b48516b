import { builtEntry as stackBuiltEntry, workspaceRoot } from '@qim/service-stack';

export { workspaceRoot };

/** The apps whose bundles the specs start (`jest.global-setup.ts` runs their `build` targets once per Jest run). */
export type BuiltApp = 'writer' | 'mailbox' | 'cli' | 'admin';

/** The bundle an app's `build` target writes; missing → the spec fails and says how to build it. */
export function builtEntry(app: BuiltApp): string {
  try {
    return stackBuiltEntry(app);
  } catch (err) {
    throw new Error(`${(err as Error).message} (or run the e2e specs through apps/e2e/jest.config.js: its global setup builds)`);
  }
}

/** The writer's and the mailbox's bundles (their `build` targets' output). */
export function serviceEntries(): { writer: string; mailbox: string } {
  return { writer: builtEntry('writer'), mailbox: builtEntry('mailbox') };
}
