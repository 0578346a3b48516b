import type { Id128 } from '@qim/store-core';
import { MAX_BODY_BYTES, MAX_EPHEMERAL_TTL_SECONDS } from '@qim/store-core';
import { z } from 'zod';

const ID128_RE = /^[0-9a-f]{32}$/;
/** Decimal digits of a u64 below 2^63 (the services' bound): at most 19 digits, no leading zero. */
const U64_RE = /^(0|[1-9][0-9]{0,18})$/;
const U64_LIMIT = 1n << 63n;

// ---- request side: parse the wire form into the store's types --------------------------------

/** A 16-byte id in its only JSON form: 32 lowercase hex characters. */
export const id128 = z
  .string()
  .regex(ID128_RE, 'must be 32 lowercase hex characters')
  .transform((s) => s as Id128);

/** A u64 in JSON: a decimal string (JSON numbers lose precision above 2^53), below 2^63. */
export const u64 = z
  .string()
  .regex(U64_RE, 'must be a decimal u64 string')
  .transform(BigInt)
  .refine((v) => v < U64_LIMIT, 'must be below 2^63');

/** Canonical base64 (standard alphabet, padded) decoding to at most `MAX_BODY_BYTES`. */
export const base64Body = z
  .string()
  .max(Math.ceil(MAX_BODY_BYTES / 3) * 4, `body must encode at most ${MAX_BODY_BYTES} bytes`)
  .regex(/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/, 'must be base64')
  .transform((s) => new Uint8Array(Buffer.from(s, 'base64')))
  .refine((b) => b.length <= MAX_BODY_BYTES, `body must be at most ${MAX_BODY_BYTES} bytes`);

/** Message kinds, as in store-core's `MessageKind`. */
export const messageKind = z.enum(['normal', 'edited', 'recalled', 'system']);

/** A retention class as a client asks for it (only `ephemeral` carries a TTL, 1 … one year). */
export const retention = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('default') }).strict(),
  z.object({ kind: z.literal('ephemeral'), ttl_seconds: z.number().int().min(1).max(MAX_EPHEMERAL_TTL_SECONDS) }).strict(),
  z.object({ kind: z.literal('tenant_custom') }).strict(),
  z.object({ kind: z.literal('compliance_hold') }).strict(),
]);

// ---- answer side: the same wire forms, checked once more on the way out --------------------------

/** An id in an answer. */
export const id128Text = z.string().regex(ID128_RE).describe('16-byte id: 32 lowercase hex characters');

/** A u64 in an answer: a decimal string. */
export const u64Text = z.string().regex(U64_RE).describe('u64 as a decimal string');
