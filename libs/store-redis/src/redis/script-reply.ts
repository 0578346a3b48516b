import { InvariantViolationError } from '@qim/store-core';

/**
 * Typed access to a script reply read with ioredis' Buffer variants: integers arrive as numbers,
 * bulk strings as Buffers, nil as null, arrays as arrays. Anything else is a script bug.
 */
export class ScriptReply {
  private constructor(
    private readonly items: readonly unknown[],
    readonly context: string,
  ) {}

  static of(raw: unknown, context: string): ScriptReply {
    if (!Array.isArray(raw)) throw new InvariantViolationError(`${context}: script reply is not an array`);
    return new ScriptReply(raw, context);
  }

  get length(): number {
    return this.items.length;
  }

  /** The result code (first element). */
  get code(): number {
    return this.int(0);
  }

  int(i: number): number {
    const v = this.items[i];
    if (typeof v === 'number' && Number.isInteger(v)) return v;
    if (Buffer.isBuffer(v) && /^-?\d+$/.test(v.toString('latin1'))) return Number(v.toString('latin1'));
    throw new InvariantViolationError(`${this.context}: reply[${i}] is not an integer`);
  }

  buf(i: number): Buffer {
    const v = this.items[i];
    if (!Buffer.isBuffer(v)) throw new InvariantViolationError(`${this.context}: reply[${i}] is not a bulk string`);
    return v;
  }

  /** A bulk string or null (nil / Lua false). */
  bufOrNull(i: number): Buffer | null {
    return this.items[i] === null || this.items[i] === undefined ? null : this.buf(i);
  }

  str(i: number): string {
    return this.buf(i).toString('utf8');
  }

  /** The elements from `start` on. */
  rest(start: number): readonly unknown[] {
    return this.items.slice(start);
  }
}
