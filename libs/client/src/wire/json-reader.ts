import type { CallSite } from '../errors/qim-error';
import { QimProtocolError } from '../errors/qim-error';
import type { Id128 } from './ids';
import { isId128 } from './ids';

const U64 = /^(0|[1-9][0-9]{0,19})$/;

/** What `JsonReader.decode` needs of a zod schema (kept structural: the client does not construct schemas). */
export interface WireSchema<T> {
  safeParse(
    value: unknown,
  ):
    | { readonly success: true; readonly data: T }
    | { readonly success: false; readonly error: { readonly issues: readonly { readonly path: readonly PropertyKey[]; readonly message: string }[] } };
}

/**
 * Reads one JSON object of an answer field by field. A missing or mistyped field fails closed with
 * a `QimProtocolError` naming its path: the client never guesses a default for what the service
 * should have sent.
 */
export class JsonReader {
  private readonly obj: Readonly<Record<string, unknown>>;

  constructor(
    value: unknown,
    private readonly path: string,
    private readonly call: CallSite | null,
    private readonly status: number | null = null,
  ) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw this.fail(path, 'an object', value);
    this.obj = value as Record<string, unknown>;
  }

  /** The whole object as sent (for fields the client does not model). */
  get raw(): Readonly<Record<string, unknown>> {
    return this.obj;
  }

  has(name: string): boolean {
    return this.obj[name] !== undefined;
  }

  string(name: string): string {
    const v = this.obj[name];
    if (typeof v !== 'string') throw this.fail(`${this.path}.${name}`, 'a string', v);
    return v;
  }

  /** A 16-byte id (32 lowercase hex). */
  id(name: string): Id128 {
    const v = this.obj[name];
    if (!isId128(v)) throw this.fail(`${this.path}.${name}`, 'a 32-hex id', v);
    return v;
  }

  boolean(name: string): boolean {
    const v = this.obj[name];
    if (typeof v !== 'boolean') throw this.fail(`${this.path}.${name}`, 'a boolean', v);
    return v;
  }

  number(name: string): number {
    const v = this.obj[name];
    if (typeof v !== 'number' || !Number.isFinite(v)) throw this.fail(`${this.path}.${name}`, 'a number', v);
    return v;
  }

  /** A u64 sent as a decimal string. */
  u64(name: string): bigint {
    const v = this.obj[name];
    if (typeof v !== 'string' || !U64.test(v)) throw this.fail(`${this.path}.${name}`, 'a decimal u64 string', v);
    return BigInt(v);
  }

  nullableU64(name: string): bigint | null {
    return this.obj[name] === null ? null : this.u64(name);
  }

  /** Base64 bytes. */
  bytes(name: string): Uint8Array {
    return new Uint8Array(Buffer.from(this.string(name), 'base64'));
  }

  object(name: string): JsonReader {
    return new JsonReader(this.obj[name], `${this.path}.${name}`, this.call, this.status);
  }

  nullableObject(name: string): JsonReader | null {
    return this.obj[name] === null ? null : this.object(name);
  }

  /**
   * The whole object decoded by a schema the services also answer with (`@qim/wire`): the client
   * checks an answer against the same definition the service builds it from. A mismatch fails
   * closed naming the first offending path.
   */
  decode<T>(schema: WireSchema<T>): T {
    const parsed = schema.safeParse(this.obj);
    if (parsed.success) return parsed.data;
    const first = parsed.error.issues[0];
    const at = first === undefined ? [] : first.path.map(String);
    const got = at.reduce<unknown>((v, k) => (typeof v === 'object' && v !== null ? (v as Record<string, unknown>)[k] : undefined), this.obj);
    throw this.fail([this.path, ...at].join('.'), first?.message ?? 'valid', got);
  }

  /** Each element of an array field as a reader (elements must be objects). */
  objects(name: string): JsonReader[] {
    return this.array(name).map((v, i) => new JsonReader(v, `${this.path}.${name}[${i}]`, this.call, this.status));
  }

  /** An array of 16-byte ids. */
  ids(name: string): Id128[] {
    return this.array(name).map((v, i) => {
      if (!isId128(v)) throw this.fail(`${this.path}.${name}[${i}]`, 'a 32-hex id', v);
      return v;
    });
  }

  private array(name: string): readonly unknown[] {
    const v = this.obj[name];
    if (!Array.isArray(v)) throw this.fail(`${this.path}.${name}`, 'an array', v);
    return v;
  }

  private fail(path: string, expected: string, got: unknown): QimProtocolError {
    const shown = got === undefined ? 'nothing' : JSON.stringify(got)?.slice(0, 80);
    return new QimProtocolError(`answer field ${path} must be ${expected}, got ${shown}`, this.status, this.call);
  }
}
