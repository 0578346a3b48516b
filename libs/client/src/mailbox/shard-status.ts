import type { HttpTransport } from '../http/http-transport';
import type { ShardStatus } from '../model/ops-model';
import { requireInt } from '../wire/ids';
import { JsonReader } from '../wire/json-reader';

/** A u64 the status route may send as a decimal string or a number; null/absent stay so. */
function optionalU64(v: unknown): bigint | null | undefined {
  if (v === undefined || v === null) return v;
  if (typeof v === 'string' && /^(0|[1-9][0-9]*)$/.test(v)) return BigInt(v);
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  if (typeof v === 'object' && 'offset' in v) return optionalU64((v as { offset: unknown }).offset);
  return undefined;
}

/**
 * `GET /v1/shards/:shard/status` (operators; token only). `shard` and `epoch` are required; the
 * frontier, the consumer lag and the assignment are read where the service reports them, and the
 * whole answer is kept in `raw`. A shard beyond the configured count → `QimInvalidInputError`.
 */
export async function shardStatus(http: HttpTransport, shard: number, signal?: AbortSignal): Promise<ShardStatus> {
  const n = requireInt('shard', shard, 0, 65_535);
  const a = await http.call({ method: 'GET', path: `/v1/shards/${n}/status`, auth: true, signal });
  const r = new JsonReader(a.body, 'shard status', a.call, a.status);
  const raw = r.raw;
  const kafka = typeof raw['kafka'] === 'object' && raw['kafka'] !== null ? (raw['kafka'] as Record<string, unknown>) : {};
  const assigned = raw['assigned_here'];
  const stall = raw['stalled'];
  return {
    shard: r.number('shard'),
    epoch: r.number('epoch'),
    frontier: optionalU64(raw['frontier']),
    lag: optionalU64(raw['lag'] ?? kafka['lag']) ?? null,
    unapplied: optionalU64(kafka['unapplied']) ?? null,
    stall: typeof stall === 'object' && stall !== null ? (stall as Record<string, unknown>) : null,
    assignedHere: typeof assigned === 'boolean' ? assigned : null,
    raw,
  };
}
