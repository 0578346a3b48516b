import { existsSync } from 'node:fs';
import path from 'node:path';

/** The nearest folder at or above `from` holding nx.json: the workspace root, from the sources and from a bundle alike. */
export function findWorkspaceRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'nx.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no nx.json above ${from}`);
  }
}

/** The workspace root: service processes and builds run there. */
export const workspaceRoot = findWorkspaceRoot(__dirname);
