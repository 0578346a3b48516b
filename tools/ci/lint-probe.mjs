// Lints virtual files (nothing is written) with the workspace ESLint config and prints, per case,
// the rule ids that fired. Used by layering.spec.ts to prove the layering rule rejects violations.
import { ESLint } from 'eslint';

const cases = JSON.parse(process.argv[2]);
const eslint = new ESLint({ cwd: process.cwd() });
const out = [];
for (const { filePath, code } of cases) {
  const [res] = await eslint.lintText(code, { filePath });
  out.push(res.messages.map((m) => m.ruleId ?? `fatal: ${m.message}`));
}
process.stdout.write(JSON.stringify(out));
