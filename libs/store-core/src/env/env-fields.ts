import { z } from 'zod';

/**
 * Zod field builders for environment variables. Every value arrives as a string (or is absent);
 * each builder trims, parses and range-checks it. Nothing here guesses: an absent required value
 * and an unparsable value are both refusals.
 */

const text = () => z.string().trim();

/** Required non-empty string. */
export const requiredString = () => text().min(1, 'must not be empty');

/** Optional non-empty string (absent or empty → undefined). */
export const optionalString = () => z.preprocess((v) => (typeof v === 'string' && v.trim() === '' ? undefined : v), text().min(1).optional());

/** An integer in [min, max] with an optional default. */
export function intField(min: number, max: number, fallback?: number) {
  const parsed = z
    .string()
    .trim()
    .regex(/^-?\d+$/, 'must be an integer')
    .transform(Number)
    .pipe(z.number().int().min(min, `must be ≥ ${min}`).max(max, `must be ≤ ${max}`));
  return fallback === undefined ? parsed : parsed.optional().transform((v) => v ?? fallback);
}

/** An optional integer in [min, max] (absent → undefined). */
export function optionalIntField(min: number, max: number) {
  return z.preprocess((v) => (typeof v === 'string' && v.trim() === '' ? undefined : v), intField(min, max).optional());
}

/** A comma-separated, non-empty list of `host:port` (port optional when `defaultPort` is given). */
export function hostList(defaultPort?: number) {
  return requiredString().transform((raw, ctx) => {
    const out: string[] = [];
    for (const part of raw.split(',').map((p) => p.trim())) {
      const m = /^([A-Za-z0-9.\-_]+|\[[0-9a-fA-F:]+\])(?::(\d{1,5}))?$/.exec(part);
      const port = m?.[2] === undefined ? defaultPort : Number(m[2]);
      if (!m || port === undefined || port < 1 || port > 65535) {
        ctx.addIssue({ code: 'custom', message: `"${part}" is not host${defaultPort === undefined ? ':port' : '[:port]'}` });
        return z.NEVER;
      }
      out.push(`${m[1]}:${port}`);
    }
    return Object.freeze(out);
  });
}

/** One of the listed literals; absent → `fallback` when given. Unknown values are refused. */
export function choice<const T extends readonly [string, ...string[]]>(values: T, fallback?: T[number]) {
  const e = z.enum(values, { error: () => `must be one of ${values.join(' | ')}` });
  return fallback === undefined ? e : e.optional().transform((v) => v ?? fallback);
}

/** A Kafka topic name. */
export const topicName = (fallback: string) =>
  z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9._-]{1,249}$/, 'must be a Kafka topic name')
    .optional()
    .transform((v) => v ?? fallback);
