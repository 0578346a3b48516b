import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * No source line is wider than 160 columns (prettier's printWidth; design 06). Prettier cannot wrap
 * a string, a comment or a shell line, so the limit is checked twice: ESLint's `max-len` in every
 * project's lint (proved here to fire), and this scan of every tracked code file — TypeScript and
 * JavaScript, shell (by extension or `#!`), Lua, Python — including the generated Lua module and
 * files outside any project. Markdown, JSON and YAML are not code and are not checked.
 */
const root = path.resolve(__dirname, '../..');
const LIMIT = 160;
const CODE = /\.(ts|js|mjs|cjs|sh|lua|py)$/;

function codeFiles(): string[] {
  const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' }).split('\0').filter(Boolean);
  return tracked.filter((f) => {
    if (CODE.test(f)) return true;
    if (path.basename(f).includes('.')) return false;
    try {
      return readFileSync(path.join(root, f), 'utf8').startsWith('#!');
    } catch {
      return false;
    }
  });
}

describe('line length', () => {
  it(`no tracked code file has a line over ${LIMIT} columns`, () => {
    const files = codeFiles();
    expect(files.length).toBeGreaterThan(500);
    expect(files).toEqual(expect.arrayContaining(['tools/ci/test-all.sh', 'tools/infra/infra', 'libs/store-redis/src/generated/lua-scripts.ts']));
    const wide: string[] = [];
    for (const f of files) {
      readFileSync(path.join(root, f), 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if ([...line].length > LIMIT) wide.push(`${f}:${i + 1} (${[...line].length})`);
        });
    }
    expect(wide).toEqual([]);
  });

  it('ESLint rejects a line over the limit and accepts one at it', () => {
    const at = `export const x = '${'a'.repeat(LIMIT - 20)}';\n`;
    const over = `export const x = '${'a'.repeat(LIMIT - 19)}';\n`;
    expect(at.length - 1).toBe(LIMIT);
    const cases = [at, over].map((code) => ({ filePath: 'libs/store-core/src/zz-probe.ts', code }));
    const out = execFileSync(process.execPath, [path.join(root, 'tools/ci/lint-probe.mjs'), JSON.stringify(cases)], { cwd: root, encoding: 'utf8' });
    const [atRules, overRules] = JSON.parse(out) as string[][];
    expect(atRules).not.toContain('max-len');
    expect(overRules).toContain('max-len');
  });
});
