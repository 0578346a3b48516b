import { buildApps, builtEntry, workspaceRoot } from '@qim/service-stack';
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';

export { workspaceRoot };

/** The bundles a drill runs: both services and the operator CLI (`reset-mailbox-offsets`). */
export interface Bundles {
  readonly writer: string;
  readonly mailbox: string;
  readonly admin: string;
}

const APPS = ['writer', 'mailbox', 'admin'] as const;

/**
 * Builds the services and the operator CLI through their Nx `build` targets (the same bundles CI
 * and the e2e suite run) and copies them into dist/drills/<app>/, so a drill restarts its processes
 * from one build even if dist/apps is rebuilt meanwhile. Returns the entries.
 */
export function buildServiceBundles(root: string = workspaceRoot): Bundles {
  buildApps(APPS, 'stderr', root);
  const out = bundlePaths(root);
  for (const name of APPS) {
    const built = builtEntry(name, root);
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
