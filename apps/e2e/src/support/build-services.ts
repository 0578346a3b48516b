import { buildApps, builtEntry as stackBuiltEntry, workspaceRoot } from '@qim/service-stack';

export { workspaceRoot };

/** The apps whose bundles the specs start: their `build` targets run once per Jest run (global setup). */
export const BUILT_APPS = ['writer', 'mailbox', 'cli', 'admin'] as const;
export type BuiltApp = (typeof BUILT_APPS)[number];

/**
 * Runs the `build` targets of the apps the specs start (cached by Nx when nothing changed). Called
 * once per Jest run by `apps/e2e/jest.global-setup.ts`, so every spec starts the current code
 * exactly as the targets build it.
 */
export function runBuildTargets(): void {
  buildApps(BUILT_APPS);
}

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
