import { buildSync } from 'esbuild';
import path from 'node:path';

const root = path.resolve(__dirname, '../../../..');

/**
 * Builds both services exactly like their `build` targets (esbuild bundle, node20, packages
 * external) into a per-run folder, so the specs always run the current code. Returns the entry files.
 */
export function buildServices(): { writer: string; mailbox: string } {
  const outDir = path.join(root, 'dist', 'e2e');
  const out = { writer: path.join(outDir, 'writer', 'main.js'), mailbox: path.join(outDir, 'mailbox', 'main.js') };
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

export const workspaceRoot = root;
