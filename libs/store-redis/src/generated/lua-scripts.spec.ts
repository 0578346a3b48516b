import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { LUA_SCRIPTS } from './lua-scripts';

const libRoot = join(__dirname, '..', '..');
const luaDir = join(libRoot, 'lua');

describe('embedded Lua scripts', () => {
  it('src/generated/lua-scripts.ts is up to date with lua/*.lua (run tools/embed-lua.mjs when this fails)', () => {
    const run = (): string => execFileSync(process.execPath, [join(libRoot, 'tools', 'embed-lua.mjs'), '--check'], { encoding: 'utf8', stdio: 'pipe' });
    expect(run).not.toThrow();
  });

  it('one entry per <name>-v<N>-<numKeys>.lua file, numberOfKeys taken from the file name', () => {
    const files = readdirSync(luaDir).filter((f) => f.endsWith('.lua')).sort();
    expect(Object.values(LUA_SCRIPTS).map((s) => s.file).sort()).toEqual(files);
    for (const s of Object.values(LUA_SCRIPTS)) expect(s.file.endsWith(`-${s.numberOfKeys ?? 'n'}.lua`)).toBe(true);
  });

  it('every registered command name carries a version (<name>-v<N>-<numKeys>.lua → <name>V<N>): two builds never share a name', () => {
    for (const s of Object.values(LUA_SCRIPTS)) {
      expect(s.file).toMatch(/-v\d+-(\d+|n)\.lua$/);
      expect(s.name).toMatch(/V\d+$/);
    }
  });

  it('every script opens with a docblock naming each KEYS[i] it declares and its outputs; includes are inlined', () => {
    for (const s of Object.values(LUA_SCRIPTS)) {
      const doc = /^--\[\[([\s\S]*?)\]\]/.exec(s.lua)?.[1] ?? '';
      if (s.numberOfKeys === null) {
        // variable keys (commit-batch): the docblock describes KEYS as a whole
        expect(doc).toMatch(/Input[\s\S]*KEYS[\s\S]*Output:/);
        expect(s.lua).not.toMatch(/^--- @(include|script)/m);
        continue;
      }
      expect(doc).toMatch(/Input:/);
      expect(doc).toMatch(/Output:/);
      for (let k = 1; k <= s.numberOfKeys; k++) expect(doc).toContain(`KEYS[${k}]`);
      expect(doc).not.toContain(`KEYS[${s.numberOfKeys + 1}]`);
      expect(s.lua).not.toMatch(/^--- @include/m);
      const body = s.lua.slice(s.lua.indexOf(']]'));
      expect(body).not.toMatch(new RegExp(`KEYS\\[${s.numberOfKeys + 1}\\]`));
    }
  });

  it('helpers live in lua/includes and each one is used by some script', () => {
    const helpers = readdirSync(join(luaDir, 'includes')).map((f) => f.replace(/\.lua$/, ''));
    const sources = readdirSync(luaDir)
      .filter((f) => f.endsWith('.lua'))
      .map((f) => readFileSync(join(luaDir, f), 'utf8'))
      .join('\n');
    const includes = helpers.map((h) => readFileSync(join(luaDir, 'includes', `${h}.lua`), 'utf8')).join('\n');
    for (const h of helpers) expect(`${sources}\n${includes}`).toContain(`--- @include "${h}"`);
  });
});
