import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * The CI's Jest report survives the failure it exists to count: a failed expectation on bigints
 * (Jest's own `--json` throws while serializing it and writes nothing). A real Jest run of a
 * throwaway spec, then the CI's closing count over its report.
 */
const root = path.resolve(__dirname, '../..');
const jestBin = require.resolve('jest/bin/jest');

describe('jest-summary-reporter', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'qim-reporter-'));
    writeFileSync(path.join(dir, 'jest.config.js'), "module.exports = { testEnvironment: 'node', testMatch: ['**/*.check.js'], transform: {} };\n");
    writeFileSync(
      path.join(dir, 'bigint.check.js'),
      "test('bigints differ', () => { expect({ seq: 41n }).toEqual({ seq: 42n }); });\ntest('passes', () => { expect(1n).toBe(1n); });\n",
    );
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes the counts of a run whose failure carries bigints, and the closing count fails', () => {
    const report = path.join(dir, 'out', 'report.json');
    const run = spawnSync(
      process.execPath,
      [jestBin, '-c', path.join(dir, 'jest.config.js'), '--reporters', path.join(root, 'tools/ci/jest-summary-reporter.cjs')],
      {
        cwd: dir,
        env: { ...process.env, JEST_SUMMARY_FILE: report },
        encoding: 'utf8',
      },
    );
    expect(run.status).toBe(1);
    const summary = JSON.parse(readFileSync(report, 'utf8'));
    expect(summary).toMatchObject({ numPassedTests: 1, numFailedTests: 1, success: false });
    expect(summary.testResults).toHaveLength(1);
    expect(summary.testResults[0].status).toBe('failed');
    expect(JSON.stringify(summary.testResults[0].failureDetails)).toContain('42n');

    const closing = spawnSync(process.execPath, [path.join(root, 'tools/ci/summarize-jest.mjs'), report], { encoding: 'utf8' });
    expect(closing.status).toBe(1);
    expect(closing.stdout).toContain('jest: 1 passed, 1 failed, 0 skipped');
  });

  it('is found the way test-all.sh names it, from a root config whose projects live in subfolders', () => {
    // test-all.sh runs the root jest.config.js (projects in libs/*, apps/*, tools/*): Jest resolves a
    // relative reporter path against each project's rootDir, so the script must give an absolute one.
    const line = readFileSync(path.join(root, 'tools/ci/test-all.sh'), 'utf8').match(/^reporters="(.*)"$/m);
    expect(line).not.toBeNull();
    const args = (line as RegExpMatchArray)[1]!.replaceAll('$root', root).split(' ');
    mkdirSync(path.join(dir, 'sub'));
    writeFileSync(
      path.join(dir, 'sub', 'jest.config.js'),
      "module.exports = { displayName: 'sub', testEnvironment: 'node', testMatch: ['**/*.check.js'], transform: {} };\n",
    );
    writeFileSync(path.join(dir, 'sub', 'ok.check.js'), "test('passes', () => { expect(2n).toBe(2n); });\n");
    writeFileSync(path.join(dir, 'root.config.js'), "module.exports = { projects: ['<rootDir>/sub'] };\n");
    const report = path.join(dir, 'projects.json');
    const run = spawnSync(process.execPath, [jestBin, '-c', path.join(dir, 'root.config.js'), ...args], {
      cwd: dir,
      env: { ...process.env, JEST_SUMMARY_FILE: report },
      encoding: 'utf8',
    });
    expect(run.stderr).not.toContain('Could not resolve a module for a custom reporter');
    expect(run.status).toBe(0);
    expect(JSON.parse(readFileSync(report, 'utf8'))).toMatchObject({ numPassedTests: 1, numFailedTests: 0, success: true });
  });

  it('test-all.sh gives the Jest passes no QIM_* variable of its own (the services they start would refuse it)', () => {
    // The e2e specs start the services with the inherited environment, and a service refuses any
    // QIM_* variable it does not know (CONFIG_INVALID): the qim-local spec failed that way once.
    const script = readFileSync(path.join(root, 'tools/ci/test-all.sh'), 'utf8');
    const prefixes = [...script.matchAll(/^((?:[A-Z_][A-Z0-9_]*=\S+ )+)npx jest/gm)].map((m) => m[1]!.trim().split(' '));
    expect(prefixes.length).toBeGreaterThanOrEqual(2);
    for (const assignments of prefixes) for (const a of assignments) expect(a).not.toMatch(/^QIM_/);
  });

  it('Jest’s own --json loses that report (why the reporter exists)', () => {
    const report = path.join(dir, 'jest.json');
    spawnSync(process.execPath, [jestBin, '-c', path.join(dir, 'jest.config.js'), '--json', '--outputFile', report], { cwd: dir, encoding: 'utf8' });
    expect(() => readFileSync(report, 'utf8')).toThrow(/ENOENT/);
  });

  it('refuses to start without an output path', () => {
    expect(() =>
      execFileSync(process.execPath, ['-e', `const R = require(${JSON.stringify(path.join(root, 'tools/ci/jest-summary-reporter.cjs'))}); new R({}, {});`], {
        env: { ...process.env, JEST_SUMMARY_FILE: '' },
        stdio: 'pipe',
      }),
    ).toThrow(/JEST_SUMMARY_FILE/);
  });
});
