import type { z } from 'zod';
import { CLIENT_QIM_VARIABLES } from './parse-env';

type Shape = Readonly<Record<string, z.ZodType>>;

/** One row of the configuration reference, derived from the services' zod schemas. */
export interface EnvVariableDoc {
  readonly name: string;
  readonly services: 'both' | 'writer' | 'mailbox';
  /** The value an absent variable gets, as the schema parses it; null when there is none. */
  readonly defaultValue: string | null;
  /** True when the schema refuses an absent value outright. */
  readonly required: boolean;
  /** The field's `.describe()` text. */
  readonly meaning: string;
}

function defaultOf(field: z.ZodType): { defaultValue: string | null; required: boolean } {
  const parsed = field.safeParse(undefined);
  if (!parsed.success) return { defaultValue: null, required: true };
  return { defaultValue: parsed.data === undefined ? null : String(parsed.data), required: false };
}

/**
 * Every variable of the two services' schemas (each with the backends' variables), sorted by name. A field without a description is an
 * error: the reference is generated from the schemas, so an undocumented variable cannot ship.
 */
export function envVariableDocs(writer: Shape, mailbox: Shape): EnvVariableDoc[] {
  const names = [...new Set([...Object.keys(writer), ...Object.keys(mailbox)])].sort();
  return names.map((name) => {
    const field = (writer[name] ?? mailbox[name]) as z.ZodType;
    const meaning = field.description;
    if (meaning === undefined || meaning.trim() === '') throw new Error(`${name} has no description in its zod schema (.describe)`);
    const services = name in writer && name in mailbox ? 'both' : name in writer ? 'writer' : 'mailbox';
    return { name, services, meaning, ...defaultOf(field) };
  });
}

const cell = (text: string) => text.replace(/\|/g, '\\|');

/** The Markdown of `docs/configuration.md`. */
export function renderConfigReference(docs: readonly EnvVariableDoc[]): string {
  const rows = docs.map((d) => {
    const dflt = d.required ? 'required' : d.defaultValue === null ? '—' : `\`${d.defaultValue}\``;
    return `| \`${d.name}\` | ${d.services} | ${cell(dflt)} | ${cell(d.meaning)} |`;
  });
  return [
    '# Configuration reference',
    '',
    "<!-- Generated from the services' zod schemas (libs/service-kit/src/config, each backend's module); do not edit by hand. -->",
    '',
    'Both services read their `QIM_*` variables through one zod schema each. An invalid, missing or',
    'unknown `QIM_*` variable stops the process naming it, before anything is contacted. `QIM_TEST_*`',
    `belong to the test gates and the client CLI's own (${[...CLIENT_QIM_VARIABLES].map((v) => `\`${v}\``).join(', ')}) are`,
    'ignored by the services.',
    '',
    'This file is generated from the schemas: `QIM_WRITE_CONFIG_DOC=1 npx jest -c tools/service-config/jest.config.js',
    'config-reference` rewrites it, and the same spec fails while it disagrees with them.',
    '',
    '| variable | service | default | meaning |',
    '|---|---|---|---|',
    ...rows,
    '',
    '`QIM_TEST_SCYLLA_ADDR/KEYSPACE/DC/RF` name the Cassandra the Scylla gate runs against (printed by',
    '`tools/infra/infra env`); a missing one fails the gate.',
    '',
    '**Node flags.** Both services run with `node --max-semi-space-size=32 main.js` on Node 24 (the',
    'Dockerfiles, `tools/scenario/qim-local`, the e2e specs, the drills): a 32 MB young-generation',
    'semi-space instead of the default 16 MB, so short-lived request and record objects are collected',
    'less often (measured: [`bench/2026-12-01-node-semi-space.md`](bench/2026-12-01-node-semi-space.md)).',
    '',
  ].join('\n');
}
