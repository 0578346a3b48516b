import type { QimClientOptions } from '@qim/client';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

/** Every option of every command; each command says which of them it accepts. */
const OPTIONS = {
  'writer-url': { type: 'string' },
  'mailbox-url': { type: 'string' },
  'token-file': { type: 'string' },
  tenant: { type: 'string' },
  user: { type: 'string' },
  'timeout-ms': { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  kind: { type: 'string' },
  'content-type': { type: 'string' },
  control: { type: 'boolean' },
  ttl: { type: 'string' },
  'client-id': { type: 'string' },
  file: { type: 'string' },
  'batch-size': { type: 'string' },
  direction: { type: 'string' },
  anchor: { type: 'string' },
  'page-size': { type: 'string' },
  limit: { type: 'string' },
  all: { type: 'boolean' },
  after: { type: 'string' },
  follow: { type: 'boolean' },
  stream: { type: 'boolean' },
  'wait-ms': { type: 'string' },
  shard: { type: 'string', multiple: true },
  shards: { type: 'string' },
} as const;

export type OptionName = keyof typeof OPTIONS;
export type ParsedOptions = {
  readonly [K in OptionName]?: (typeof OPTIONS)[K] extends { multiple: true } ? string[] : (typeof OPTIONS)[K]['type'] extends 'boolean' ? boolean : string;
};

const GLOBAL: readonly OptionName[] = ['writer-url', 'mailbox-url', 'token-file', 'tenant', 'user', 'timeout-ms', 'json', 'help'];

/** A usage or configuration problem: printed with the usage, exit status 2. */
export class UsageError extends Error {}

export interface CommandLine {
  readonly positionals: readonly string[];
  readonly options: ParsedOptions;
}

export function parseCommandLine(argv: readonly string[]): CommandLine {
  // Refused by name, not as an unknown option: whoever used it must learn where the token goes now.
  if (argv.some((a) => a === '--token' || a.startsWith('--token='))) {
    throw new UsageError('--token is not accepted (the process list would show the token): set QIM_SERVICE_TOKEN or pass --token-file FILE');
  }
  try {
    const { values, positionals } = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
    return { positionals, options: values as ParsedOptions };
  } catch (err) {
    // node:util errors may come from another realm (a test VM): read the message structurally.
    const message = (err as { message?: unknown }).message;
    throw new UsageError(typeof message === 'string' ? message : String(err));
  }
}

/** Refuses options that the command does not take (a typo must not be silently ignored). */
export function allowOnly(command: string, options: ParsedOptions, own: readonly OptionName[]): void {
  const allowed = new Set<string>([...GLOBAL, ...own]);
  const extra = Object.keys(options).filter((k) => !allowed.has(k));
  if (extra.length > 0) throw new UsageError(`${command} does not take ${extra.map((e) => `--${e}`).join(', ')}`);
}

/** A non-negative integer option, or `fallback` when absent. */
export function intOption(options: ParsedOptions, name: OptionName, fallback: number): number;
export function intOption(options: ParsedOptions, name: OptionName, fallback?: undefined): number | undefined;
export function intOption(options: ParsedOptions, name: OptionName, fallback?: number): number | undefined {
  const v = options[name];
  if (v === undefined) return fallback;
  if (typeof v !== 'string' || !/^(0|[1-9][0-9]{0,9})$/.test(v)) throw new UsageError(`--${name} must be a non-negative integer, got ${JSON.stringify(v)}`);
  return Number(v);
}

/** A u64 option (a seq or cursor). */
export function u64Option(options: ParsedOptions, name: OptionName): bigint | undefined {
  const v = options[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || !/^(0|[1-9][0-9]{0,18})$/.test(v)) throw new UsageError(`--${name} must be a decimal u64, got ${JSON.stringify(v)}`);
  return BigInt(v);
}

/**
 * The service token: the first line of `--token-file`, else `QIM_SERVICE_TOKEN`. Never a flag's
 * value: every user of the machine can read a process's arguments.
 */
function serviceToken(options: ParsedOptions, env: Readonly<Record<string, string | undefined>>): string {
  const file = options['token-file'];
  if (file !== undefined) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      throw new UsageError(`cannot read --token-file ${file}: ${(err as { code?: unknown }).code ?? (err as Error).message}`);
    }
    const token = (text.split(/\r?\n/)[0] ?? '').trim();
    if (token === '') throw new UsageError(`--token-file ${file} is empty`);
    return token;
  }
  const token = env['QIM_SERVICE_TOKEN']?.trim();
  if (token === undefined || token === '') throw new UsageError('no service token: set QIM_SERVICE_TOKEN or pass --token-file FILE');
  return token;
}

/** Client options from flags, then the environment, then the qim-local defaults. */
export function clientOptions(options: ParsedOptions, env: Readonly<Record<string, string | undefined>>): QimClientOptions {
  const pick = (flag: OptionName, variable: string): string | undefined => {
    const v = options[flag] ?? env[variable];
    return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
  };
  const token = serviceToken(options, env);
  return {
    writerUrl: pick('writer-url', 'QIM_WRITER_URL') ?? 'http://127.0.0.1:18080',
    mailboxUrl: pick('mailbox-url', 'QIM_MAILBOX_URL') ?? 'http://127.0.0.1:18081',
    token,
    tenantId: pick('tenant', 'QIM_TENANT_ID'),
    userId: pick('user', 'QIM_USER_ID'),
    timeoutMs: intOption(options, 'timeout-ms', 10_000),
  };
}
