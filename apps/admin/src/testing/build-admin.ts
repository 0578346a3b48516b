import { buildSync } from 'esbuild';
import path from 'node:path';

const root = path.resolve(__dirname, '../../../..');

/**
 * Builds the CLI exactly like its `build` target (esbuild bundle, node20, packages external) into a
 * folder of its own, so the spec always runs the current code. Returns the entry file.
 */
export function buildAdminCli(): string {
  const outfile = path.join(root, 'dist', 'admin-spec', 'main.js');
  buildSync({
    entryPoints: [path.join(root, 'apps', 'admin', 'src', 'main.ts')],
    bundle: true,
    platform: 'node',
    target: 'node20',
    packages: 'external',
    tsconfig: path.join(root, 'tsconfig.base.json'),
    outfile,
    logLevel: 'warning',
    absWorkingDir: root,
  });
  return outfile;
}

/** The workspace root (the CLI runs from there). */
export const workspaceRoot = root;
