import { buildSync } from 'esbuild';
import { existsSync } from 'node:fs';
import path from 'node:path';

/** The workspace root: the nearest folder above this file holding nx.json (works from source and bundle). */
function findRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'nx.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no nx.json above ${from}`);
  }
}

export const workspaceRoot = findRoot(__dirname);

export interface Bundles {
  readonly writer: string;
  readonly mailbox: string;
}

/**
 * Builds both services like their `build` targets (esbuild, node20, packages external) into
 * dist/drills/, so a drill always runs the current code. Returns the entry files.
 */
export function buildServiceBundles(root: string = workspaceRoot): Bundles {
  const out = bundlePaths(root);
  for (const name of ['writer', 'mailbox'] as const) {
    buildSync({
      entryPoints: [path.join(root, 'apps', name, 'src', 'main.ts')],
      bundle: true,
      platform: 'node',
      target: 'node20',
      packages: 'external',
      tsconfig: path.join(root, 'tsconfig.base.json'),
      outfile: out[name],
      logLevel: 'warning',
      absWorkingDir: root,
    });
  }
  return out;
}

function bundlePaths(root: string): Bundles {
  const outDir = path.resolve(root, process.env['QIM_DRILLS_BUNDLE_DIR'] ?? path.join('dist', 'drills'));
  return { writer: path.join(outDir, 'writer', 'main.js'), mailbox: path.join(outDir, 'mailbox', 'main.js') };
}

/**
 * The bundles of an earlier build (`--no-build`: CI builds once for all drills), in dist/drills or
 * `QIM_DRILLS_BUNDLE_DIR` (relative to the workspace root); missing → error.
 */
export function existingBundles(root: string = workspaceRoot): Bundles {
  const out = bundlePaths(root);
  for (const f of [out.writer, out.mailbox]) if (!existsSync(f)) throw new Error(`${f} is missing: run a drill without --no-build first`);
  return out;
}
