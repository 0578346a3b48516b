import { randomBytes } from 'node:crypto';
import { SCYLLA_TABLE_NAMES } from '@qim/backends';
import { buildAdminCli } from './testing/build-admin';
import { runAdmin } from './testing/run-admin';
import type { CliRun } from './testing/run-admin';

/**
 * The built CLI (esbuild bundle, spawned with node) against the real cluster of the Scylla gate
 * (`QIM_TEST_SCYLLA_ADDR/DC/RF/KEYSPACE`: any missing → this spec FAILS, never skips). One fresh
 * keyspace `<QIM_TEST_SCYLLA_KEYSPACE>_admin_<random>` per run. It is not dropped: this app may not
 * import the CQL driver or the store library, and nothing exported to it drops keyspaces — remove
 * leftovers with `DROP KEYSPACE` (they all match `<QIM_TEST_SCYLLA_KEYSPACE>_admin_%`).
 */
jest.setTimeout(180_000);

function requireTestEnv(name: string): string {
  const v = (process.env[name] ?? '').trim();
  if (v === '') throw new Error(`${name} is not set: run \`tools/infra/infra up cassandra\` and \`eval "$(tools/infra/infra env)"\` (this spec never skips)`);
  return v;
}

const rf = Number(requireTestEnv('QIM_TEST_SCYLLA_RF'));
const keyspace = `${requireTestEnv('QIM_TEST_SCYLLA_KEYSPACE')}_admin_${randomBytes(3).toString('hex')}`;
const clusterEnv = {
  QIM_ENV: 'test',
  QIM_SCYLLA_HOSTS: requireTestEnv('QIM_TEST_SCYLLA_ADDR'),
  QIM_SCYLLA_DC: requireTestEnv('QIM_TEST_SCYLLA_DC'),
  QIM_SCYLLA_RF: String(rf),
  QIM_SCYLLA_KEYSPACE: keyspace,
};

let cli: string;
const admin = (args: readonly string[], over: Record<string, string> = {}): CliRun => runAdmin(cli, args, { ...clusterEnv, ...over });
const lines = (text: string): string[] => text.split('\n').filter((l) => l !== '');

beforeAll(() => {
  cli = buildAdminCli();
});

describe('usage', () => {
  it('--help prints the usage and exits 2', () => {
    const r = admin(['--help']);
    expect(r.status).toBe(2);
    expect(r.stdout).toMatch(/^usage: .*main\.js <command>/);
    expect(r.stdout).toMatch(/migrate/);
    expect(r.stdout).toMatch(/verify/);
  });

  it.each([[['drop']], [[]], [['migrate', 'now']], [['toString']]])('%j: usage on stderr, exit 2, nothing run', (args) => {
    const r = admin(args);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/usage: /);
    expect(r.stdout).toBe('');
  });
});

describe('reset-mailbox-offsets (arguments and configuration; its effect is proven by apps/e2e mailbox-kafka-faults)', () => {
  it('is listed in the usage', () => {
    expect(admin(['--help']).stdout).toMatch(/reset-mailbox-offsets \[--shard N\]/);
  });

  it.each([[['--shard']], [['--shard', 'x']], [['--all']]])('%j: a usage error, exit 2, nothing contacted', (args) => {
    const r = admin(['reset-mailbox-offsets', ...args]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^reset-mailbox-offsets takes \[--shard N\]/);
  });

  it('refuses a configuration without the mailbox variables (exit 2), naming them', () => {
    const r = admin(['reset-mailbox-offsets', '--shard', '0']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^invalid configuration \(nothing was contacted or altered\):/);
    expect(r.stderr).toMatch(/QIM_KAFKA_BROKERS: is required/);
  });
});

describe('against the real cluster', () => {
  it('verify on a missing keyspace: not ready (exit 1) naming the keyspace, and it creates nothing', () => {
    for (let i = 0; i < 2; i++) {
      const r = admin(['verify']);
      expect(r.status).toBe(1);
      expect(r.stdout).toContain(`FAIL keyspace ${keyspace}: keyspace ${keyspace} does not exist`);
      expect(r.stderr).toMatch(/^not ready: 1 problem/);
    }
  });

  it('migrate on a new keyspace: one line per step, the keyspace and every table created, then ready (exit 0)', () => {
    const r = admin(['migrate']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const out = lines(r.stdout);
    expect(out.slice(0, 3)).toEqual([
      `connecting to ${clusterEnv.QIM_SCYLLA_HOSTS} (data center ${clusterEnv.QIM_SCYLLA_DC})`,
      `migrating keyspace ${keyspace} (RF ${rf}): ${SCYLLA_TABLE_NAMES.length} tables`,
      `keyspace ${keyspace} created`,
    ]);
    expect(out.slice(3, 3 + SCYLLA_TABLE_NAMES.length)).toEqual(SCYLLA_TABLE_NAMES.map((t) => `table ${t} created`));
    for (const t of SCYLLA_TABLE_NAMES) expect(out).toContain(`ok   table ${t}`);
    expect(out).toContain(`migrate done (cassandra): keyspace created, ${SCYLLA_TABLE_NAMES.length} table(s) created, 0 already present, 0 column(s) added`);
    expect(out.at(-1)).toBe('ready');
  });

  it('migrate again: the keyspace verified and every table already present (exit 0)', () => {
    const r = admin(['migrate']);
    expect(r.status).toBe(0);
    const out = lines(r.stdout);
    expect(out).toContain(`keyspace ${keyspace} verified (already present)`);
    for (const t of SCYLLA_TABLE_NAMES) expect(out).toContain(`table ${t} already present`);
    expect(out).toContain(`migrate done (cassandra): keyspace verified, 0 table(s) created, ${SCYLLA_TABLE_NAMES.length} already present, 0 column(s) added`);
  });

  it('verify: every check passes (exit 0)', () => {
    const r = admin(['verify']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const out = lines(r.stdout);
    expect(out).toContain(`ok   keyspace ${keyspace}`);
    for (const t of SCYLLA_TABLE_NAMES) expect(out).toContain(`ok   table ${t}`);
    expect(out.filter((l) => l.startsWith('FAIL'))).toEqual([]);
    expect(out.at(-1)).toBe('ready (cassandra)');
  });

  it('another RF than the existing keyspace: migrate refuses naming the replication factor, alters nothing; verify is red', () => {
    const r = admin(['migrate'], { QIM_SCYLLA_RF: String(rf + 1) });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(
      `migrate refused: scylla schema refused: keyspace ${keyspace}: replication factor of "${clusterEnv.QIM_SCYLLA_DC}" is ${rf}, expected ${rf + 1}`,
    );
    expect(r.stderr).toContain('nothing was altered');
    expect(r.stdout).not.toMatch(/created/);
    const red = admin(['verify'], { QIM_SCYLLA_RF: String(rf + 1) });
    expect(red.status).toBe(1);
    expect(red.stdout).toMatch(/FAIL keyspace .*replication factor/);
    expect(admin(['verify']).status).toBe(0);
  });

  it('QIM_ENV=production with RF 1: the config is refused (exit 2) before anything is contacted', () => {
    const r = admin(['migrate'], { QIM_ENV: 'production', QIM_SCYLLA_RF: '1', QIM_SCYLLA_KEYSPACE: `${keyspace}_prod` });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/QIM_SCYLLA_RF: must be ≥ 3 when QIM_ENV=production/);
    expect(r.stdout).toBe('');
  });

  it.each([
    ['a bad keyspace name', { QIM_SCYLLA_KEYSPACE: 'Bad-Name' }, /QIM_SCYLLA_KEYSPACE: must match/],
    ['a missing variable', { QIM_SCYLLA_DC: '' }, /QIM_SCYLLA_DC: required/],
    ['a misspelt QIM_* variable', { QIM_SCYLA_RF: '1' }, /QIM_SCYLA_RF: unknown QIM_\* variable/],
  ])('%s: config refused (exit 2)', (_name, over, reason) => {
    const r = admin(['migrate'], over);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(reason);
  });

  it.each([
    [
      'an unknown data center',
      { QIM_SCYLLA_DC: 'dc_that_does_not_exist', QIM_SCYLLA_KEYSPACE: `${keyspace}_dc` },
      /data center "dc_that_does_not_exist" is unknown/,
    ],
    ['unreachable hosts', { QIM_SCYLLA_HOSTS: '127.0.0.1:1', QIM_SCYLLA_KEYSPACE: `${keyspace}_down` }, /CQL unavailable/],
  ])('%s: migrate refuses (exit 1), nothing altered', (_name, over, reason) => {
    const r = admin(['migrate'], over);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(reason);
    expect(r.stderr).toContain('nothing was altered');
    expect(admin(['verify'], { QIM_SCYLLA_KEYSPACE: over.QIM_SCYLLA_KEYSPACE }).stdout).toContain('does not exist');
  });
});
