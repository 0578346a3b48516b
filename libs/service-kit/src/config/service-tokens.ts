import { z } from 'zod';

/** What a bearer header can carry (RFC 6750's token68 is narrower; we accept every visible ASCII character). */
const VISIBLE_ASCII = /^[\x21-\x7e]+$/;
const MIN_TOKEN_LENGTH = 16;
const LENGTH_RULE = `at least ${MIN_TOKEN_LENGTH} characters`;
const CHARSET_RULE = 'visible ASCII only (no spaces)';

/** Empty or absent → undefined; the value itself never appears in a message. */
const blankToUndefined = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);

/**
 * `QIM_SERVICE_TOKEN`: the token (required; the one this deployment's own tools present).
 * `QIM_SERVICE_TOKENS`: further tokens accepted at the same time, comma-separated (so a token of
 * this list cannot contain a comma). Each is checked for length and characters; no message repeats
 * a value.
 */
export const serviceTokenShape = {
  QIM_SERVICE_TOKEN: z
    .string({ error: () => `must be set (${LENGTH_RULE}): every API call presents a service token as a bearer token` })
    .trim()
    .min(MIN_TOKEN_LENGTH, `must be set (${LENGTH_RULE}): every API call presents a service token as a bearer token`)
    .regex(VISIBLE_ASCII, `must be ${CHARSET_RULE}`)
    .describe('the bearer token every API call presents and the tools of this deployment use (at least 16 visible ASCII characters)'),
  QIM_SERVICE_TOKENS: z
    .preprocess(
      blankToUndefined,
      z
        .string()
        .transform((raw, ctx) => {
          const parts = raw.split(',').map((p) => p.trim());
          parts.forEach((p, i) => {
            if (p.length < MIN_TOKEN_LENGTH || !VISIBLE_ASCII.test(p)) {
              ctx.addIssue({ code: 'custom', message: `token ${i + 1} of the list must be ${LENGTH_RULE}, ${CHARSET_RULE}` });
            }
          });
          return Object.freeze(parts);
        })
        .optional(),
    )
    .describe('further bearer tokens accepted at the same time, comma-separated (rotation without downtime; each at least 16 visible ASCII characters)'),
} as const;

type TokenRaw = { readonly QIM_SERVICE_TOKEN: string; readonly QIM_SERVICE_TOKENS?: readonly string[] | undefined };

/**
 * Every token the service accepts: `QIM_SERVICE_TOKEN` first, then `QIM_SERVICE_TOKENS`, without
 * repeats. Several at once let an operator rotate without downtime: accept the new token beside the
 * old one, move the callers, drop the old one (each step a rolling restart).
 */
export function serviceTokensOf(raw: TokenRaw): readonly string[] {
  return Object.freeze([...new Set([raw.QIM_SERVICE_TOKEN, ...(raw.QIM_SERVICE_TOKENS ?? [])])]);
}
