import { createHash } from 'node:crypto';
import { compareId128 } from '../model/ids';
import type { Id128 } from '../model/ids';
import { LANE_COUNT } from '../model/mailbox';
import type { DispatchManifest, ManifestChunk, ManifestLane } from '../model/mailbox';
import { ByteReader } from './byte-reader';
import { ByteWriter } from './byte-writer';
import { MAX_CODEC_CHUNK_SIZE } from './codec-limits';
import { isArrayValue } from './fields';

/**
 * `DispatchManifest` codec — the deterministic plan of one dispatch; its SHA-256 is the digest
 * `beginDispatch` compares on every later sight.
 *
 * Layout v1 (big-endian, exact length):
 * ```
 * "QDM" 0x01
 * dispatchId[16] tenantId[16]
 * chunkSize u32 (1…MAX_CODEC_CHUNK_SIZE)
 * 64 × lane (lane number = position, not stored):
 *   chunkCount u32
 *   chunkCount × chunk (chunkId = position in its lane, not stored):
 *     userCount u32 (1…chunkSize) + userCount × user[16]
 * ```
 * Canonical: users strictly ascending across the whole lane (chunk after chunk) and no user in two
 * lanes (decode → NOT_CANONICAL, encode → `InvalidInputError`); `lanes[i].lane === i` and
 * `chunks[j].chunkId === j` on encode. Which lane a user belongs to (`laneOf`) and how chunks are
 * filled is the manifest builder's rule, not checked here.
 *
 * Tail compatibility: v1 is exact-length. New fields are appended after lane 63 under a new version
 * byte whose decoder also accepts v1. The digest covers the bytes, so a manifest once seen in v1 must
 * keep being encoded as v1 by the builder that produced it, or its dispatch becomes a conflict.
 */
const CODEC = 'dispatch-manifest';
const MAGIC = 'QDM';
const VERSION = 1;

export function encodeDispatchManifest(m: DispatchManifest): Buffer {
  const w = new ByteWriter(CODEC).header(MAGIC, VERSION);
  w.id(m.dispatchId, 'dispatchId').id(m.tenantId, 'tenantId');
  if (!Number.isSafeInteger(m.chunkSize) || m.chunkSize < 1 || m.chunkSize > MAX_CODEC_CHUNK_SIZE) {
    throw w.invalid('chunkSize', `must be an integer in 1…${MAX_CODEC_CHUNK_SIZE}`);
  }
  w.u32(m.chunkSize, 'chunkSize');
  if (!isArrayValue(m.lanes) || m.lanes.length !== LANE_COUNT) throw w.invalid('lanes', `must hold exactly ${LANE_COUNT} lanes`);
  const seen = new Set<Id128>();
  m.lanes.forEach((lane, laneNo) => {
    if (lane.lane !== laneNo) throw w.invalid('lanes', `position ${laneNo} holds lane ${String(lane.lane)}`);
    if (!isArrayValue(lane.chunks)) throw w.invalid('chunks', `of lane ${laneNo} must be an array`);
    w.u32(lane.chunks.length, 'chunkCount');
    let last: Id128 | undefined;
    lane.chunks.forEach((chunk, chunkNo) => {
      if (chunk.chunkId !== chunkNo) throw w.invalid('chunks', `lane ${laneNo} position ${chunkNo} holds chunk ${String(chunk.chunkId)}`);
      if (!isArrayValue(chunk.users) || chunk.users.length < 1 || chunk.users.length > m.chunkSize) throw w.invalid('chunk users', `must hold 1…${m.chunkSize} users`);
      w.u32(chunk.users.length, 'userCount');
      for (const user of chunk.users) {
        w.id(user, 'user');
        if ((last !== undefined && compareId128(last, user) >= 0) || seen.has(user)) {
          throw w.invalid('chunk users', 'must be strictly ascending within a lane and unique across lanes');
        }
        seen.add(user);
        last = user;
      }
    });
  });
  return w.finish();
}

export function decodeDispatchManifest(b: Uint8Array): DispatchManifest {
  const r = new ByteReader(CODEC, b);
  r.header(MAGIC, [VERSION]);
  const dispatchId = r.id('dispatchId');
  const tenantId = r.id('tenantId');
  const chunkSize = r.u32In(1, MAX_CODEC_CHUNK_SIZE, 'chunkSize');
  const seen = new Set<Id128>();
  const lanes: ManifestLane[] = [];
  for (let laneNo = 0; laneNo < LANE_COUNT; laneNo++) {
    const chunkCount = r.u32('chunkCount');
    r.needItems(chunkCount, 4 + 16, 'chunks');
    const chunks: ManifestChunk[] = [];
    let last: Id128 | undefined;
    for (let chunkId = 0; chunkId < chunkCount; chunkId++) {
      const userCount = r.u32In(1, chunkSize, 'userCount');
      r.needItems(userCount, 16, 'users');
      const users: Id128[] = [];
      for (let u = 0; u < userCount; u++) {
        const user = r.id('user');
        if ((last !== undefined && compareId128(last, user) >= 0) || seen.has(user)) {
          r.fail('NOT_CANONICAL', `lane ${laneNo}: users not strictly ascending or repeated across lanes`);
        }
        seen.add(user);
        last = user;
        users.push(user);
      }
      chunks.push({ chunkId, users });
    }
    lanes.push({ lane: laneNo, chunks });
  }
  r.end();
  return { dispatchId, tenantId, chunkSize, lanes };
}

/** SHA-256 (32 bytes) of `encodeDispatchManifest(m)`. */
export function manifestDigest(m: DispatchManifest): Buffer {
  return createHash('sha256').update(encodeDispatchManifest(m)).digest();
}
