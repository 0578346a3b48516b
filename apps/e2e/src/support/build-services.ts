import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '../../../..');

export const workspaceRoot = root;

/** The apps whose bundles the specs start: their `build` targets run once per Jest run (global setup). */
export const BUILT_APPS = ['writer', 'mailbox', 'cli', 'admin'] as const;
export type BuiltApp = (typeof BUILT_APPS)[number];

/**
 * Runs the `build` targets of the apps the specs start (`nx run-many -t build`, cached by Nx when
 * nothing changed). Called once per Jest run by `apps/e2e/jest.global-setup.ts`, so every spec
 * starts the current code exactly as the targets build it.
 */
export function runBuildTargets(): void {
  const nx = path.join(root, 'node_modules', '.bin', 'nx');
  try {
    execFileSync(nx, ['run-many', '-t', 'build', '-p', ...BUILT_APPS, '--output-style=static'], {
      cwd: root,
      env: { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true', NX_TUI: 'false' },
      stdio: 'pipe',
      timeout: 600_000,
    });
  } catch (err) {
    const e = err as { stdout?: Buffer; stderr?: Buffer; message: string };
    throw new Error(`e2e: building ${BUILT_APPS.join(', ')} failed: ${e.message}\n${e.stdout?.toString() ?? ''}${e.stderr?.toString() ?? ''}`);
  }
}

/**
 * The bundle an app's `build` target writes: the `--outfile` of its command, which must lie in the
 * target's declared `outputs`. Missing bundle → the spec fails and says how to build it.
 */
export function builtEntry(app: BuiltApp): string {
  const project = JSON.parse(fs.readFileSync(path.join(root, 'apps', app, 'project.json'), 'utf8')) as {
    targets?: { build?: { outputs?: string[]; options?: { command?: string } } };
  };
  const build = project.targets?.build;
  const outfile = /--outfile=(\S+)/.exec(build?.options?.command ?? '')?.[1];
  const outputs = (build?.outputs ?? []).map((o) => path.resolve(root, o.replace('{workspaceRoot}', '.')));
  if (outfile === undefined) throw new Error(`apps/${app}/project.json: the build target names no --outfile`);
  const entry = path.resolve(root, outfile);
  if (!outputs.some((o) => entry.startsWith(`${o}${path.sep}`))) throw new Error(`apps/${app}/project.json: ${outfile} is outside the build target's outputs ${JSON.stringify(build?.outputs)}`);
  if (!fs.existsSync(entry)) throw new Error(`${outfile} is missing: run the e2e specs through apps/e2e/jest.config.js (its global setup builds) or \`npx nx run ${app}:build\``);
  return entry;
}

/** The writer's and the mailbox's bundles (their `build` targets' output). */
export function serviceEntries(): { writer: string; mailbox: string } {
  return { writer: builtEntry('writer'), mailbox: builtEntry('mailbox') };
}
