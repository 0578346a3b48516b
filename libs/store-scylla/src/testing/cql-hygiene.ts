import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Static check that the Scylla backend never removes data by statement: no string literal in its
 * sources may contain the word DELETE, and none may be an `UPDATE … USING TTL` (which only expires
 * the updated cells and leaves an INSERTed row marker alive: a primary-key-only ghost row). Specs
 * and `testing/` (which simulate damage, like a lost bucket proof) are not the backend.
 *
 * One table is exempt from the UPDATE rule: `message_commit`. Its state moves need `IF state = ?`,
 * which only UPDATE has, and its row marker is INSERTed with the same fixed deadline that every
 * state move writes (remaining TTL), so no ghost row can outlive it (`commit-table.ts`).
 */
export interface CqlViolation {
  readonly file: string;
  readonly rule: 'DELETE' | 'UPDATE … USING TTL';
  readonly literal: string;
}

/** Every `.ts` file under `dir` except `*.spec.ts` and anything inside a `testing` folder. */
export function backendSourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (name !== 'testing') out.push(...backendSourceFiles(path));
    } else if (name.endsWith('.ts') && !name.endsWith('.spec.ts')) {
      out.push(path);
    }
  }
  return out.sort();
}

/** The string and template literals of a TypeScript source text (comments are not literals). */
export function stringLiterals(text: string): string[] {
  const withoutComments = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
  return [...withoutComments.matchAll(/'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"|`(?:\\.|[^`\\])*`/g)].map((m) => m[0]);
}

/** The rule a literal breaks, or null. */
export function forbiddenCql(literal: string): CqlViolation['rule'] | null {
  if (/\bDELETE\b/i.test(literal)) return 'DELETE';
  if (/\bUPDATE\s+\{ks\}\.message_commit\b/i.test(literal)) return null;
  if (/\bUPDATE\b[\s\S]*\bUSING\b[\s\S]*\bTTL\b/i.test(literal)) return 'UPDATE … USING TTL';
  return null;
}

/** All violations in the backend sources under `dir`. */
export function scanBackend(dir: string): CqlViolation[] {
  const out: CqlViolation[] = [];
  for (const file of backendSourceFiles(dir)) {
    for (const literal of stringLiterals(readFileSync(file, 'utf8'))) {
      const rule = forbiddenCql(literal);
      if (rule !== null) out.push({ file, rule, literal });
    }
  }
  return out;
}
