// Prints one closing line over Jest JSON reports ("N passed, N failed, N skipped") and exits
// non-zero when anything failed, a report is missing, nothing ran, or a test was skipped/focused
// (we allow none).
import { existsSync, readFileSync } from 'node:fs';

let passed = 0;
let failed = 0;
let skipped = 0;
let ok = true;
for (const file of process.argv.slice(2)) {
  if (!existsSync(file)) {
    console.log(`MISSING REPORT: ${file} (the Jest run did not finish)`);
    ok = false;
    continue;
  }
  const report = JSON.parse(readFileSync(file, 'utf8'));
  passed += report.numPassedTests;
  failed += report.numFailedTests + report.numRuntimeErrorTestSuites;
  skipped += report.numPendingTests + report.numTodoTests;
  ok &&= report.success;
  for (const suite of report.testResults) {
    if (suite.status !== 'passed') console.log(`FAILED SUITE: ${suite.name}\n${(suite.message || '').slice(0, 4000)}`);
  }
}
console.log(`jest: ${passed} passed, ${failed} failed, ${skipped} skipped`);
if (!ok || failed > 0 || passed === 0 || skipped > 0) process.exit(1);
