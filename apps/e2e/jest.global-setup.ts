import { execFileSync } from 'node:child_process';
import path from 'node:path';

/** The apps whose bundles the specs start. */
const BUILT_APPS = ['writer', 'mailbox', 'cli', 'admin'];

/**
 * Once per Jest run, before any spec: the `build` targets of the apps the specs start (cached by Nx
 * when nothing changed), so every spec starts the current code exactly as the targets build it.
 * Jest runs this file outside its module map (no `@qim/*` paths), so it calls Nx itself.
 */
export default function globalSetup(): void {
  const root = path.resolve(__dirname, '../..');
  try {
    execFileSync(path.join(root, 'node_modules', '.bin', 'nx'), ['run-many', '-t', 'build', '-p', ...BUILT_APPS, '--output-style=static'], {
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
