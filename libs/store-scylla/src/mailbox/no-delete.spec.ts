import { join } from 'node:path';
import { backendSourceFiles, forbiddenCql, scanBackend, stringLiterals } from '../testing/cql-hygiene';

const BACKEND_SRC = join(__dirname, '..');

describe('no DELETE and no UPDATE … USING TTL anywhere in the Scylla backend', () => {
  it('reads every non-spec .ts file under libs/store-scylla/src (message and mailbox stores included)', () => {
    const files = backendSourceFiles(BACKEND_SRC).map((f) => f.slice(BACKEND_SRC.length + 1));
    expect(files).toEqual(
      expect.arrayContaining([
        'index.ts',
        'mailbox/schema.ts',
        'mailbox/tables/entry-table.ts',
        'mailbox/tables/frontier-table.ts',
        'mailbox/page/apply-page.ts',
        'migrate/legacy-layout.ts',
      ]),
    );
    expect(files.some((f) => f.endsWith('.spec.ts') || f.includes('testing/'))).toBe(false);
  });

  it('finds no CQL string containing DELETE or UPDATE … USING TTL', () => {
    expect(scanBackend(BACKEND_SRC)).toEqual([]);
  });

  it('the check can fail: it flags both forms and ignores comments', () => {
    const src = [
      "const a = 'DELETE FROM ks.t WHERE k = ?';",
      'const b = `UPDATE {ks}.t\n SET v = ? WHERE k = ? USING TTL ?`;',
      'const c = "update ks.t using ttl 5 set v = 1";',
      '// DELETE FROM in a comment is not a statement',
      "/* UPDATE t USING TTL 1 */ const d = 'INSERT INTO t (k, v) VALUES (?, ?) USING TTL ?';",
      "const e = 'UPDATE {ks}.message_commit USING TTL ? SET state = ? WHERE k = ? IF state = ?';",
      "const f = 'UPDATE {ks}.dispatch_chunk USING TTL ? SET done = ? WHERE k = ?';",
    ].join('\n');
    const found = stringLiterals(src).map(forbiddenCql);
    expect(found).toEqual(['DELETE', 'UPDATE … USING TTL', 'UPDATE … USING TTL', null, null, 'UPDATE … USING TTL']);
  });
});
