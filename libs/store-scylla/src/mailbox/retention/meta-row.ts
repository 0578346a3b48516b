import type { types } from 'cassandra-driver';
import { CodecError, CorruptEntryError, checkRetentionMeta, decodeActiveLedger, encodeActiveLedger, gapFromStored, gapToStored } from '@qim/store-core';
import type { RetentionMeta } from '@qim/store-core';
import type { CqlRunner } from '../../session/cql-runner';
import { reqBlob, reqI64, reqInt } from '../cql/rows';
import { RETENTION_META } from '../tables/retention-tables';

/** Stored sentinel of `inspected_through_bucket` for "no day consumed yet". */
export const NO_INSPECTED_DAY = -1n;

/** A user's meta as read: the domain value and the exact stored column values (the LWT condition). */
export interface StoredMeta {
  readonly meta: RetentionMeta;
  readonly stored: readonly unknown[];
}

/** The five stored column values of a meta, in `RETENTION_META` column order. */
export function metaColumns(m: RetentionMeta): unknown[] {
  return [
    m.version,
    m.generation,
    m.inspectedThrough === null ? NO_INSPECTED_DAY : BigInt(m.inspectedThrough),
    gapToStored(m.gap),
    encodeActiveLedger(m.ledger),
  ];
}

/** Decodes a meta row; null columns, an undecodable ledger or a non-V4 version → `CorruptEntryError`. */
export function parseMetaRow(row: types.Row): StoredMeta {
  const version = reqInt(row, 'retention_format_version', 'retention meta');
  const generation = reqI64(row, 'ledger_generation', 'retention meta');
  const inspected = reqI64(row, 'inspected_through_bucket', 'retention meta');
  const gapStored = reqI64(row, 'expired_gap_boundary', 'retention meta');
  const blob = reqBlob(row, 'active_ledger', 'retention meta');
  let ledger;
  try {
    ledger = decodeActiveLedger(blob);
  } catch (e) {
    if (e instanceof CodecError) throw new CorruptEntryError(`active ledger undecodable: ${e.message}`, { cause: e });
    throw e;
  }
  if (inspected < NO_INSPECTED_DAY || inspected > 0xffff_ffffn) throw new CorruptEntryError(`inspected_through_bucket out of range: ${inspected}`);
  const meta = checkRetentionMeta({
    version,
    generation,
    inspectedThrough: inspected === NO_INSPECTED_DAY ? null : Number(inspected),
    gap: gapFromStored(gapStored),
    ledger,
  });
  return { meta, stored: [version, generation, inspected, gapStored, blob] };
}

/** Reads a user's meta; null for a user that never had an entry. */
export async function readMeta(cql: CqlRunner, tenant: Buffer, user: Buffer): Promise<StoredMeta | null> {
  const row = await cql.one(RETENTION_META.select, [tenant, user]);
  return row === null ? null : parseMetaRow(row);
}

/**
 * The single meta LWT: `INSERT … IF NOT EXISTS` for a first meta, else a CAS comparing all five
 * stored fields (version, generation, inspected-through, gap, whole ledger blob). False = lost a race.
 */
export async function writeMeta(cql: CqlRunner, tenant: Buffer, user: Buffer, expected: StoredMeta | null, next: RetentionMeta): Promise<boolean> {
  const cols = metaColumns(next);
  const r =
    expected === null
      ? await cql.lwt(RETENTION_META.insert, [tenant, user, ...cols])
      : await cql.lwt(RETENTION_META.cas, [...cols, tenant, user, ...expected.stored]);
  return r.applied;
}
