// A Jest reporter that writes the few fields tools/ci/summarize-jest.mjs reads. It replaces
// `--json --outputFile`: Jest's own JSON output throws on a bigint anywhere in the results (a failed
// expectation comparing bigints carries them in its details), and then the report is lost exactly
// when a test failed. Here a bigint is written as its decimal text with an `n` suffix.
// Usage: --reporters=default --reporters=./tools/ci/jest-summary-reporter.cjs, with the output
// path in JEST_SUMMARY_FILE (reporter options cannot be given on the command line). Not a QIM_*
// name: the e2e specs start services that inherit the environment and refuse an unknown QIM_* variable.
'use strict';
const { mkdirSync, writeFileSync } = require('node:fs');
const { dirname, resolve } = require('node:path');

function summaryOf(results) {
  const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
  return {
    numPassedTests: results.numPassedTests,
    numFailedTests: results.numFailedTests,
    numRuntimeErrorTestSuites: results.numRuntimeErrorTestSuites,
    numPendingTests: results.numPendingTests,
    numTodoTests: results.numTodoTests,
    // Jest sets `success` only after the reporters ran; this is the same rule.
    success: failed === 0 && !results.snapshot?.failure && !results.runExecError,
    testResults: results.testResults.map((suite) => ({
      name: suite.testFilePath,
      status: suite.numFailingTests > 0 || suite.testExecError ? 'failed' : 'passed',
      message: suite.failureMessage ?? (suite.testExecError ? String(suite.testExecError.message) : ''),
      failureDetails: suite.testResults.filter((t) => t.status === 'failed').map((t) => ({ title: t.fullName, details: t.failureDetails })),
    })),
  };
}

function serialize(value) {
  return JSON.stringify(
    value,
    (_key, v) => {
      if (typeof v === 'bigint') return `${v}n`;
      if (v instanceof Error) return { name: v.name, message: v.message, stack: v.stack };
      return v;
    },
    2,
  );
}

class JestSummaryReporter {
  constructor(_globalConfig, options = {}) {
    this.outputFile = options.outputFile ?? process.env.JEST_SUMMARY_FILE;
    if (!this.outputFile) throw new Error('jest-summary-reporter: set JEST_SUMMARY_FILE (or the outputFile option)');
  }

  onRunComplete(_contexts, results) {
    const file = resolve(this.outputFile);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, serialize(summaryOf(results)));
  }
}

module.exports = JestSummaryReporter;
module.exports.summaryOf = summaryOf;
module.exports.serialize = serialize;
