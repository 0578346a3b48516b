// Prints the closing line of a Jest JSON report ("N passed, N failed, N skipped") and exits
// non-zero when anything failed, nothing ran, or a test was skipped/focused (we allow none).
import { readFileSync } from 'node:fs';

const report = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const passed = report.numPassedTests;
const failed = report.numFailedTests + report.numRuntimeErrorTestSuites;
const skipped = report.numPendingTests + report.numTodoTests;
for (const suite of report.testResults) {
  if (suite.status !== 'passed') console.log(`FAILED SUITE: ${suite.name}\n${(suite.message || '').slice(0, 4000)}`);
}
console.log(`jest: ${passed} passed, ${failed} failed, ${skipped} skipped`);
if (failed > 0 || passed === 0 || skipped > 0 || !report.success) process.exit(1);
