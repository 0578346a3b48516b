import { InvalidInputError } from '@qim/store-core';

/** The longest TTL Cassandra/Scylla accept (20 years, in seconds). */
export const MAX_CQL_TTL_SECONDS = 630_720_000;

/**
 * The TTL (seconds) to write an entry with so that it lives until its fixed absolute expiry and
 * never longer than the next whole second after it: `ceil(expiresAt / 1000) − floor(now / 1000)`.
 *
 * The server computes a cell's end as `floor(serverNow / 1 s) + ttl`; with this TTL that end is
 * `ceil(expiresAt / 1 s)` (to the second) whenever the server's clock agrees with ours — whatever
 * the moment of the write. So a retry or a same-value rewrite of the entry lands on the same
 * absolute end and never renews it (the seed's "重试不续期"), and an entry never vanishes before
 * its `expiresAt`. ≤ 0 → the entry is already expired and must not be written.
 */
export function entryTtlSeconds(expiresAt: bigint, nowMs: bigint): number {
  const ttl = Number((expiresAt + 999n) / 1000n - nowMs / 1000n);
  if (ttl > MAX_CQL_TTL_SECONDS) throw new InvalidInputError(`entry expiry is more than 20 years away (${ttl} s)`);
  return ttl;
}
