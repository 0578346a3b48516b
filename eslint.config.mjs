// Lint = layering. Nx tags say who may import whom; drivers stay inside their adapter library.
import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';

const drivers = ['ioredis', 'cassandra-driver', 'kafkajs'];
const httpStack = ['fastify', 'fastify-plugin', '@fastify/*'];

export default [
  { ignores: ['**/node_modules/**', '**/dist/**', '**/coverage/**', '.infra/**', '.nx/**'] },
  ...tseslint.configs.recommended,
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
          depConstraints: [
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
            // the service library wires config → backend factory; apps choose a backend only through it.
            { sourceTag: 'type:service', onlyDependOnLibsWithTags: ['type:core', 'type:backend', 'type:bus'], bannedExternalImports: drivers },
            // the client speaks HTTP/JSON only: nothing of ours, no driver, no server stack.
            { sourceTag: 'type:client', onlyDependOnLibsWithTags: [], bannedExternalImports: [...drivers, ...httpStack] },
            { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:core', 'type:service', 'type:bus', 'type:testing', 'type:client'], bannedExternalImports: drivers },
            // tools (drills, infra checks) drive the product from outside: through the HTTP client only.
            { sourceTag: 'type:tools', onlyDependOnLibsWithTags: ['type:client'] },
          ],
        },
      ],
    },
  },
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
