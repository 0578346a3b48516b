import { MAX_CODEC_CHUNK_SIZE } from '../codecs/codec-limits';
import { InvalidInputError } from '../errors/domain-errors';
import type { Id128 } from '../model/ids';
import { LANE_COUNT } from '../model/mailbox';
import type { DispatchManifest, ManifestChunk, ManifestLane } from '../model/mailbox';
import { normalizeRecipients } from './request-validation';
import { laneOf } from './sharding';

/** Input of `buildManifest`. */
export interface ManifestInput {
  readonly dispatchId: Id128;
  readonly tenantId: Id128;
  /** Any order, duplicates allowed: the manifest sorts and dedups. */
  readonly recipients: readonly Id128[];
  /** Users per chunk, integer 1 … `MAX_CODEC_CHUNK_SIZE`. */
  readonly chunkSize: number;
}

/**
 * The deterministic plan of one dispatch: recipients sorted ascending and unique, each placed in
 * `laneOf(tenantId, user)`, each lane's users cut in order into chunks of at most `chunkSize`
 * (chunk ids 0, 1, … ; only the last chunk of a lane may be smaller). Always exactly
 * `LANE_COUNT` (64) lanes, index = lane; a lane without recipients has no chunks. The result
 * depends only on the recipient *set*, never on input order.
 */
export function buildManifest(input: ManifestInput): DispatchManifest {
  const { chunkSize } = input;
  if (!Number.isInteger(chunkSize) || chunkSize < 1 || chunkSize > MAX_CODEC_CHUNK_SIZE) {
    throw new InvalidInputError(`chunkSize must be an integer 1…${MAX_CODEC_CHUNK_SIZE}: ${chunkSize}`);
  }
  const perLane: Id128[][] = Array.from({ length: LANE_COUNT }, () => []);
  for (const user of normalizeRecipients(input.recipients)) perLane[laneOf(input.tenantId, user)]!.push(user);
  const lanes: ManifestLane[] = perLane.map((users, lane) => {
    const chunks: ManifestChunk[] = [];
    for (let at = 0; at < users.length; at += chunkSize) {
      chunks.push({ chunkId: chunks.length, users: users.slice(at, at + chunkSize) });
    }
    return { lane, chunks };
  });
  return { dispatchId: input.dispatchId, tenantId: input.tenantId, chunkSize, lanes };
}

/**
 * The chunk `chunkId` of `lane` when the manifest declares it, else null (unknown lane, negative or
 * non-integer ids, or a chunk id past the lane's last chunk are all "not declared").
 */
export function declaredChunk(m: DispatchManifest, lane: number, chunkId: number): ManifestChunk | null {
  const chunk = m.lanes[lane]?.chunks[chunkId];
  return chunk !== undefined && Number.isInteger(lane) && Number.isInteger(chunkId) ? chunk : null;
}

/** Every recipient of the manifest, ascending (lane order does not matter). */
export function manifestRecipients(m: DispatchManifest): Id128[] {
  return normalizeRecipients(m.lanes.flatMap((l) => l.chunks.flatMap((c) => c.users)));
}

/** Structural equality: ids, chunk size, and every lane's chunks with their users in order. */
export function manifestsEqual(a: DispatchManifest, b: DispatchManifest): boolean {
  return (
    a.dispatchId === b.dispatchId &&
    a.tenantId === b.tenantId &&
    a.chunkSize === b.chunkSize &&
    a.lanes.length === b.lanes.length &&
    a.lanes.every((la, i) => {
      const lb = b.lanes[i]!;
      return (
        la.lane === lb.lane &&
        la.chunks.length === lb.chunks.length &&
        la.chunks.every((ca, j) => {
          const cb = lb.chunks[j]!;
          return ca.chunkId === cb.chunkId && ca.users.length === cb.users.length && ca.users.every((u, k) => u === cb.users[k]);
        })
      );
    })
  );
}

/**
 * True when `m` is exactly what `buildManifest` produces for its own recipients and chunk size
 * (lanes, placement, order and chunking all canonical). A store may use it to refuse a foreign or
 * hand-made manifest before fixing a receipt.
 */
export function isCanonicalManifest(m: DispatchManifest): boolean {
  try {
    const rebuilt = buildManifest({ dispatchId: m.dispatchId, tenantId: m.tenantId, recipients: manifestRecipients(m), chunkSize: m.chunkSize });
    return manifestsEqual(m, rebuilt);
  } catch {
    return false;
  }
}
