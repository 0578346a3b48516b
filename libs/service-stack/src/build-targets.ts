import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { workspaceRoot } from './workspace';

/**
 * Runs the `build` targets of `apps` (`nx run-many -t build`, cached by Nx when nothing changed).
 * `output: 'pipe'` keeps Nx's output and puts it into the error when the build fails;
 * `'stderr'` streams it to this process's stderr.
 */
export function buildApps(apps: readonly string[], output: 'pipe' | 'stderr' = 'pipe', root: string = workspaceRoot): void {
  const nx = path.join(root, 'node_modules', '.bin', 'nx');
  try {
    execFileSync(nx, ['run-many', '-t', 'build', '-p', ...apps, '--output-style=static'], {
      cwd: root,
      env: { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true', NX_TUI: 'false' },
      stdio: output === 'pipe' ? 'pipe' : ['ignore', process.stderr, process.stderr],
      timeout: 600_000,
    });
  } catch (err) {
    const e = err as { stdout?: Buffer; stderr?: Buffer; message: string };
    throw new Error(`building ${apps.join(', ')} failed: ${e.message}\n${e.stdout?.toString() ?? ''}${e.stderr?.toString() ?? ''}`);
  }
}

/**
 * The bundle an app's `build` target writes: the `--outfile` of its command, which must lie in the
 * target's declared `outputs`. Missing bundle → an error that says how to build it.
 */
export function builtEntry(app: string, root: string = workspaceRoot): string {
  const project = JSON.parse(fs.readFileSync(path.join(root, 'apps', app, 'project.json'), 'utf8')) as {
    targets?: { build?: { outputs?: string[]; options?: { command?: string } } };
  };
  const build = project.targets?.build;
  const outfile = /--outfile=(\S+)/.exec(build?.options?.command ?? '')?.[1];
  const outputs = (build?.outputs ?? []).map((o) => path.resolve(root, o.replace('{workspaceRoot}', '.')));
  if (outfile === undefined) throw new Error(`apps/${app}/project.json: the build target names no --outfile`);
  const entry = path.resolve(root, outfile);
  if (!outputs.some((o) => entry.startsWith(`${o}${path.sep}`)))
    throw new Error(`apps/${app}/project.json: ${outfile} is outside the build target's outputs ${JSON.stringify(build?.outputs)}`);
  if (!fs.existsSync(entry)) throw new Error(`${outfile} is missing: \`npx nx run ${app}:build\` builds it`);
  return entry;
}
