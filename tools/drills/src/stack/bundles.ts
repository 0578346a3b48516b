import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';

/** The workspace root: the nearest folder above this file holding nx.json (works from source and bundle). */
function findRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'nx.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no nx.json above ${from}`);
  }
}

export const workspaceRoot = findRoot(__dirname);

/** The bundles a drill runs: both services and the operator CLI (`reset-mailbox-offsets`). */
export interface Bundles {
  readonly writer: string;
  readonly mailbox: string;
  readonly admin: string;
}

const APPS = ['writer', 'mailbox', 'admin'] as const;

/**
 * Builds the services and the operator CLI through their Nx `build` targets (dist/apps/<app>/main.js,
 * the same bundles CI and the e2e suite run) and copies them into dist/drills/<app>/, so a drill
 * restarts its processes from one build even if dist/apps is rebuilt meanwhile. Returns the entries.
 */
export function buildServiceBundles(root: string = workspaceRoot): Bundles {
  execFileSync('npx', ['nx', 'run-many', '-t', 'build', '-p', ...APPS, '--outputStyle=static'], {
    cwd: root,
    env: { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true', NX_TUI: 'false' },
    stdio: ['ignore', process.stderr, process.stderr],
  });
  const out = bundlePaths(root);
  for (const name of APPS) {
    const built = path.join(root, 'dist', 'apps', name, 'main.js');
    mkdirSync(path.dirname(out[name]), { recursive: true });
    copyFileSync(built, out[name]);
    if (existsSync(`${built}.map`)) copyFileSync(`${built}.map`, `${out[name]}.map`);
  }
  return out;
}

function bundlePaths(root: string): Bundles {
  const outDir = path.resolve(root, process.env['QIM_DRILLS_BUNDLE_DIR'] ?? path.join('dist', 'drills'));
  return { writer: path.join(outDir, 'writer', 'main.js'), mailbox: path.join(outDir, 'mailbox', 'main.js'), admin: path.join(outDir, 'admin', 'main.js') };
}

/**
 * The bundles of an earlier build (`--no-build`: CI builds once for all drills), in dist/drills or
 * `QIM_DRILLS_BUNDLE_DIR` (relative to the workspace root); missing → error.
 */
export function existingBundles(root: string = workspaceRoot): Bundles {
  const out = bundlePaths(root);
  for (const f of [out.writer, out.mailbox, out.admin]) if (!existsSync(f)) throw new Error(`${f} is missing: run a drill without --no-build first`);
  return out;
}
