import type { Id128 } from '@qim/store-core';
import { MAX_BODY_BYTES, MAX_EPHEMERAL_TTL_SECONDS, MESSAGE_KINDS } from '@qim/store-core';
import { z } from 'zod';

/** A 16-byte id in its only JSON form: 32 lowercase hex characters. */
export const id128 = z
  .string()
  .regex(/^[0-9a-f]{32}$/, 'must be 32 lowercase hex characters')
  .transform((s) => s as Id128);

/** A u64 in JSON: a decimal string (JSON numbers lose precision above 2^53). */
export const u64 = z
  .string()
  .regex(/^(0|[1-9][0-9]{0,18})$/, 'must be a decimal u64 string')
  .transform(BigInt)
  .refine((v) => v < 1n << 63n, 'must be below 2^63');

/** Canonical base64 (standard alphabet, padded) decoding to at most `MAX_BODY_BYTES`. */
export const base64Body = z
  .string()
  .max(Math.ceil(MAX_BODY_BYTES / 3) * 4, `body must encode at most ${MAX_BODY_BYTES} bytes`)
  .regex(/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/, 'must be base64')
  .transform((s) => new Uint8Array(Buffer.from(s, 'base64')))
  .refine((b) => b.length <= MAX_BODY_BYTES, `body must be at most ${MAX_BODY_BYTES} bytes`);

export const messageKind = z.enum(MESSAGE_KINDS as unknown as readonly ['normal', 'edited', 'recalled', 'system']);

export const retention = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('default') }).strict(),
  z.object({ kind: z.literal('ephemeral'), ttl_seconds: z.number().int().min(1).max(MAX_EPHEMERAL_TTL_SECONDS) }).strict(),
  z.object({ kind: z.literal('tenant_custom') }).strict(),
  z.object({ kind: z.literal('compliance_hold') }).strict(),
]);
