// Lint = layering. Nx tags say who may import whom; drivers stay inside their adapter library.
import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';

const drivers = ['ioredis', 'cassandra-driver', 'kafkajs'];
const httpStack = ['fastify', 'fastify-plugin', '@fastify/*'];

/**
 * Folder layers inside a library (its README lists them under "Layers"): a folder imports only the
 * folders of lower levels — never a peer of its own level, a higher one, the library's root files or
 * its `testing/`. `sub` gives a folder's own subfolder levels; the folder's root files sit above them.
 * Specs are free. One `no-restricted-imports` entry per folder (a later entry replaces an earlier one
 * for the files both match, so a subfolder's entry repeats its folder's patterns).
 */
function folderLayers(src, levels, { top, sub = {} }) {
  const entry = (files, patterns) => ({ files: [files], ignores: ['**/*.spec.ts'], rules: { 'no-restricted-imports': ['error', { patterns }] } });
  const why = (what) => `${what} (the layers are listed in the library README)`;
  return levels.flatMap((level, i) => {
    const higher = levels.slice(i).flat();
    return level.flatMap((folder) => {
      const banned = [...higher.filter((f) => f !== folder), ...top];
      const upward = { regex: `^(\\.\\./)+(${banned.join('|')})(/|$)`, message: why(`${src}/${folder}/ may import only lower folders`) };
      const inner = (sub[folder] ?? []).flatMap((subLevel, j) => {
        const subHigher = sub[folder].slice(j).flat();
        return subLevel.map((s) => {
          const siblings = subHigher.filter((x) => x !== s);
          const patterns = [upward, { regex: '^\\.\\./[^./]+$', message: why(`the files of ${folder}/ sit above its subfolders`) }];
          if (siblings.length > 0)
            patterns.push({ regex: `^\\.\\./(${siblings.join('|')})(/|$)`, message: why(`${folder}/${s}/ may import only lower subfolders`) });
          return entry(`${src}/${folder}/${s}/**/*.ts`, patterns);
        });
      });
      return [entry(`${src}/${folder}/**/*.ts`, [upward]), ...inner];
    });
  });
}

/** Who may import whom (Nx tags). */
const depConstraints = [
  // store-core knows no driver, no HTTP stack, nothing of ours.
  { sourceTag: 'type:core', onlyDependOnLibsWithTags: [], bannedExternalImports: [...drivers, ...httpStack] },
  // each backend knows core (and, in its specs, the contract suite) and only its own driver.
  { sourceTag: 'driver:none', bannedExternalImports: drivers },
  { sourceTag: 'type:backend', bannedExternalImports: httpStack },
  { sourceTag: 'type:testing', bannedExternalImports: [...drivers, ...httpStack] },
  { sourceTag: 'driver:redis', bannedExternalImports: ['cassandra-driver', 'kafkajs', ...httpStack] },
  { sourceTag: 'driver:cql', bannedExternalImports: ['ioredis', 'kafkajs', ...httpStack] },
  { sourceTag: 'driver:kafka', bannedExternalImports: ['ioredis', 'cassandra-driver', ...httpStack] },
  { sourceTag: 'type:backend', onlyDependOnLibsWithTags: ['type:core', 'type:testing'] },
  { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:core'] },
  { sourceTag: 'type:bus', onlyDependOnLibsWithTags: ['type:core'] },
  // the wire forms shared by both services (zod schemas of ids, u64s, record JSON): core types only, no HTTP stack.
  { sourceTag: 'type:wire', onlyDependOnLibsWithTags: ['type:core'], bannedExternalImports: [...drivers, ...httpStack] },
  // the service library: HTTP, lifecycle, config plumbing — below the stores, it imports none of them.
  { sourceTag: 'type:service', onlyDependOnLibsWithTags: ['type:core', 'type:bus'], bannedExternalImports: drivers },
  // the one place a backend is chosen and opened: the registry of the stores' backend modules, and the services'
  // environment schemas over their variables.
  { sourceTag: 'type:backends', onlyDependOnLibsWithTags: ['type:core', 'type:backend', 'type:service'], bannedExternalImports: [...drivers, ...httpStack] },
  // one runtime library per service, over the plumbing of service-kit. Stores and the writer's coordination
  // (membership, writer-id leases, recovery claims) open through the backends registry only.
  {
    sourceTag: 'type:runtime',
    onlyDependOnLibsWithTags: ['type:core', 'type:service', 'type:bus', 'type:backends'],
    bannedExternalImports: [...drivers, ...httpStack],
  },
  // the mailbox side (its runtime and app) never reaches writer code: no leases, no coordination.
  {
    sourceTag: 'scope:mailbox',
    onlyDependOnLibsWithTags: ['type:core', 'type:service', 'type:backends', 'type:bus', 'type:wire', 'type:testing', 'scope:mailbox'],
  },
  { sourceTag: 'scope:writer', notDependOnLibsWithTags: ['scope:mailbox'] },
  // the client speaks HTTP/JSON only: of ours just the wire forms it decodes answers with, no driver, no server stack.
  { sourceTag: 'type:client', onlyDependOnLibsWithTags: ['type:wire'], bannedExternalImports: [...drivers, ...httpStack] },
  {
    sourceTag: 'type:app',
    onlyDependOnLibsWithTags: [
      'type:core',
      'type:service',
      'type:backends',
      'type:runtime',
      'type:wire',
      'type:bus',
      'type:testing',
      'type:client',
      'type:harness',
    ],
    bannedExternalImports: drivers,
  },
  // the service-stack harness starts the built services as processes (the e2e specs and the drills): nothing of ours,
  // no driver, no server stack; of the apps only the e2e specs use it.
  { sourceTag: 'type:harness', onlyDependOnLibsWithTags: [], bannedExternalImports: [...drivers, ...httpStack] },
  { sourceTag: 'scope:writer', notDependOnLibsWithTags: ['type:harness'] },
  // tools (drills, infra checks) drive the product from outside: through the HTTP client and the service-stack harness only.
  { sourceTag: 'type:tools', onlyDependOnLibsWithTags: ['type:client', 'type:harness'] },
  // the benchmarks (tools/bench) measure the stores and services beside raw driver baselines: the drivers directly (the
  // baselines), the stores only through libs/backends (its registry, and `@qim/backends/testing` for the stores' test kits).
  {
    sourceTag: 'type:bench',
    onlyDependOnLibsWithTags: ['type:core', 'type:backends', 'type:bus', 'type:service', 'type:runtime', 'type:wire', 'type:client', 'type:harness'],
  },
  // the checks over both services' configuration (tools/service-config): the two runtimes' schemas side by side, no driver.
  {
    sourceTag: 'type:config',
    onlyDependOnLibsWithTags: ['type:core', 'type:service', 'type:backends', 'type:runtime'],
    bannedExternalImports: [...drivers, ...httpStack],
  },
  // the soak (tools/soak) runs the real store and worker code in-process: stores only through libs/backends (the test
  // kits of `@qim/backends/testing`, with their inspection seams), no driver.
  {
    sourceTag: 'type:soak',
    onlyDependOnLibsWithTags: ['type:core', 'type:backends', 'type:bus', 'type:service', 'type:runtime'],
    bannedExternalImports: drivers,
  },
];

/** A runtime's specs may also build the stores' own classes (leases on a manual clock, a shared claims table, a raw Redis probe). */
const runtimeSpecConstraints = depConstraints.map((c) =>
  c.sourceTag === 'type:runtime' ? { ...c, onlyDependOnLibsWithTags: [...c.onlyDependOnLibsWithTags, 'type:backend'] } : c,
);

const boundaries = (constraints) => ['error', { enforceBuildableLibDependency: false, allow: [], depConstraints: constraints }];

export default [
  { ignores: ['**/node_modules/**', '**/dist/**', '**/coverage/**', '.infra/**', '.nx/**'] },
  ...tseslint.configs.recommended,
  // Prettier wraps code at 160 columns but not strings or comments; this holds those to it too
  // (tools/ci/line-length.spec.ts checks the files ESLint does not lint).
  { rules: { 'max-len': ['error', { code: 160, tabWidth: 2 }] } },
  {
    files: ['**/*.ts'],
    plugins: { '@nx': nx },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { prefer: 'type-imports', fixStyle: 'separate-type-imports' }],
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          allow: [],
          depConstraints: depConstraints,
        },
      ],
    },
  },
  ...folderLayers('libs/store-core/src', [['errors', 'env'], ['model'], ['codecs'], ['ports'], ['rules'], ['committer']], { top: ['testing', 'index'] }),
  ...folderLayers('libs/store-scylla/src', [['config'], ['session'], ['schema'], ['message', 'mailbox'], ['migrate'], ['readiness']], {
    top: ['testing', 'index', 'all-tables', 'backend'],
    sub: { message: [['tables']], mailbox: [['cql'], ['tables', 'context'], ['retention'], ['page']] },
  }),
  { files: ['libs/*-runtime/src/**/*.spec.ts'], rules: { '@nx/enforce-module-boundaries': boundaries(runtimeSpecConstraints) } },
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', module: 'writable', __dirname: 'readonly', process: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['**/*.spec.ts', 'tools/**/*.ts', 'tools/**/*.mjs'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
];
