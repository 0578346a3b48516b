import { CorruptEntryError, encodeCommitIntent, requestIdentity } from '@qim/store-core';
import type { CommitIntent, Id128, SendRequest } from '@qim/store-core';
import { SAMPLE_SEND_REQUEST } from '@qim/store-core/testing';
import type { types } from 'cassandra-driver';
import { mapBounded } from './bounded';
import { isTakeoverAllowed } from './claim';
import { decodeCommitRow } from './commit-rows';
import type { StoredClaim } from './commit-rows';
import { takeWithinBudget } from './history-page';
import { ttlSecondsOf } from './message-context';
import { RECOVERY_SETTLE_MS, before, comparePositions, recoveryWindow, scanStart } from './recovery-window';
import { seqBucketOf } from './tables/record-table';

const id = (n: number): Id128 => n.toString(16).padStart(32, '0') as Id128;
const request: SendRequest = SAMPLE_SEND_REQUEST;
const intent: CommitIntent = {
  key: { tenantId: id(1), senderId: id(2), clientMessageId: id(3) },
  identity: requestIdentity(request),
  request,
  seq: 5n,
  messageId: id(9),
  createdAt: 1_700_000_000_000n,
  recipients: [id(2)],
  publication: null,
};
const row = (r: Record<string, unknown>) => r as unknown as types.Row;

describe('decodeCommitRow', () => {
  const good = {
    identity: Buffer.from(intent.identity),
    intent: encodeCommitIntent(intent),
    state: 'RESERVED',
    born_us: 1_700_000_000_000_000n,
    recovery_at: 1_700_000_000_123n,
  };
  const claim = { identity: Buffer.from(intent.identity), intent: null, state: 'CLAIMED', claim: Buffer.alloc(16, 7), born_us: 5n, claim_us: 6n };
  it('decodes a complete commit row', () => {
    const s = decodeCommitRow(row(good), intent.key);
    expect(s?.kind).toBe('commit');
    if (s?.kind !== 'commit') return;
    expect(s.snapshot.state).toBe('RESERVED');
    expect(s.snapshot.intent.seq).toBe(5n);
    expect(s.bornMicros).toBe(1_700_000_000_000_000n);
    expect(s.recoveryAt).toBe(1_700_000_000_123n);
  });
  it('RECORDED is a RESERVED state cell plus a record mark naming the claim token (the old RECORDED state cell still reads as RECORDED)', () => {
    const token = Buffer.alloc(16, 7);
    const decoded = (r: Record<string, unknown>) => {
      const s = decodeCommitRow(row({ ...good, claim: token, ...r }), intent.key);
      return s?.kind === 'commit' ? { state: s.snapshot.state, stateCell: s.stateCell } : null;
    };
    expect(decoded({ recorded: token })).toEqual({ state: 'RECORDED', stateCell: 'RESERVED' });
    expect(decoded({})).toEqual({ state: 'RESERVED', stateCell: 'RESERVED' });
    // a late mark of an earlier incarnation of the key (another token) does not record this one
    expect(decoded({ recorded: Buffer.alloc(16, 8) })).toEqual({ state: 'RESERVED', stateCell: 'RESERVED' });
    expect(decodeCommitRow(row({ ...good, recorded: token }), intent.key)).toMatchObject({ snapshot: { state: 'RESERVED' } });
    expect(decoded({ state: 'RECORDED' })).toEqual({ state: 'RECORDED', stateCell: 'RECORDED' });
    expect(decoded({ state: 'OUTBOXED', recorded: token })).toEqual({ state: 'OUTBOXED', stateCell: 'OUTBOXED' });
    expect(decoded({ state: 'COMMITTED', recorded: token })).toEqual({ state: 'COMMITTED', stateCell: 'COMMITTED' });
  });
  it('decodes a claim (token, or empty = abandoned) with its write times', () => {
    expect(decodeCommitRow(row(claim), intent.key)).toEqual({ kind: 'claim', identity: claim.identity, token: claim.claim, bornMicros: 5n, claimMicros: 6n });
    expect(decodeCommitRow(row({ ...claim, claim: Buffer.alloc(0) }), intent.key)).toMatchObject({ kind: 'claim', token: Buffer.alloc(0) });
  });
  it('no row, or a row whose cells expired → absent', () => {
    expect(decodeCommitRow(undefined, intent.key)).toBeNull();
    expect(decodeCommitRow(row({ ...good, identity: null }), intent.key)).toBeNull();
    expect(decodeCommitRow(row({ ...good, intent: null }), intent.key)).toBeNull();
    expect(decodeCommitRow(row({ ...good, state: null }), intent.key)).toBeNull();
    expect(decodeCommitRow(row({ ...claim, claim: null }), intent.key)).toBeNull();
    expect(decodeCommitRow(row({ ...claim, identity: null }), intent.key)).toBeNull();
  });
  it('undecodable intent, unknown state, other key or identity, a claim with an intent or a bad token → CorruptEntry', () => {
    expect(() => decodeCommitRow(row({ ...good, intent: Buffer.from('junk') }), intent.key)).toThrow(CorruptEntryError);
    expect(() => decodeCommitRow(row({ ...good, state: 'LOST' }), intent.key)).toThrow(CorruptEntryError);
    expect(() => decodeCommitRow(row(good), { ...intent.key, senderId: id(7) })).toThrow(CorruptEntryError);
    expect(() => decodeCommitRow(row({ ...good, identity: Buffer.alloc(32) }), intent.key)).toThrow(CorruptEntryError);
    expect(() => decodeCommitRow(row({ ...claim, intent: encodeCommitIntent(intent) }), intent.key)).toThrow(CorruptEntryError);
    expect(() => decodeCommitRow(row({ ...claim, claim: Buffer.alloc(3) }), intent.key)).toThrow(CorruptEntryError);
  });
});

describe('isTakeoverAllowed', () => {
  const claimAt = (ms: bigint, token = Buffer.alloc(16, 1)): StoredClaim => ({
    kind: 'claim',
    identity: Buffer.alloc(32),
    token,
    bornMicros: ms * 1000n,
    claimMicros: ms * 1000n,
  });
  it('only once the lease has passed since the token was written, or at once when abandoned', () => {
    expect(isTakeoverAllowed(claimAt(1_000n), 1_000n + 15_000n, 15_000n)).toBe(false);
    expect(isTakeoverAllowed(claimAt(1_000n), 1_000n + 15_001n, 15_000n)).toBe(true);
    expect(isTakeoverAllowed(claimAt(1_000n, Buffer.alloc(0)), 1_000n, 15_000n)).toBe(true);
    expect(isTakeoverAllowed({ ...claimAt(1_000n), claimMicros: -1n }, 10n ** 12n, 15_000n)).toBe(false);
  });
});

describe('takeWithinBudget', () => {
  const rows = [10, 20, 30, 40].map((size, i) => ({ seq: BigInt(i + 1), messageId: id(i), size, ttl: null }));
  it('the first item always, then strict byte and item budgets', () => {
    expect(takeWithinBudget(rows, 10, 1).map((r) => r.size)).toEqual([10]);
    expect(takeWithinBudget(rows, 10, 30).map((r) => r.size)).toEqual([10, 20]);
    expect(takeWithinBudget(rows, 10, 29).map((r) => r.size)).toEqual([10]);
    expect(takeWithinBudget(rows, 3, 1000).map((r) => r.size)).toEqual([10, 20, 30]);
    expect(takeWithinBudget([], 3, 1000)).toEqual([]);
  });
});

describe('recovery window and progress', () => {
  const H = 3_600_000n;
  const at = (position: bigint, fill = 1) => ({ position, tenant: Buffer.alloc(16, fill), sender: Buffer.alloc(16, fill), client: Buffer.alloc(16, fill) });
  it('reads nothing that may have expired, and keeps the progress a settle time behind now', () => {
    const now = 100n * H + 5n;
    const w = recoveryWindow(now, 2n * H);
    expect(w.from).toBe(now - 2n * H);
    expect(w.limit).toBe(now - RECOVERY_SETTLE_MS);
    expect(w.lastBucket).toBe(100n);
    expect(recoveryWindow(H - 1n, 2n * H).from).toBe(0n);
    expect(recoveryWindow(H - 1n, 1n).lastBucket).toBe(1n);
    expect(RECOVERY_SETTLE_MS >= 5_000n).toBe(true);
  });
  it('starts at the stored progress, but never below the first live position', () => {
    const w = recoveryWindow(100n * H, 2n * H);
    expect(scanStart(null, w)).toEqual(before(w.from));
    expect(scanStart(at(w.from - 1n), w)).toEqual(before(w.from));
    expect(scanStart(at(w.from + 10n), w)).toEqual(at(w.from + 10n));
  });
  it('orders positions as the clustering does: position, then key bytes', () => {
    expect(comparePositions(at(5n), at(6n))).toBe(-1);
    expect(comparePositions(at(6n, 1), at(6n, 2))).toBe(-1);
    expect(comparePositions(at(6n, 2), at(6n, 2))).toBe(0);
    expect(comparePositions(before(6n), at(6n, 0))).toBe(-1);
    expect(comparePositions(at(5n, 255), before(6n))).toBe(-1);
  });
});

describe('small helpers', () => {
  it('ttlSecondsOf rounds up and never returns 0 (CQL TTL 0 = forever)', () => {
    expect(ttlSecondsOf(7_200_000n)).toBe(7200);
    expect(ttlSecondsOf(1n)).toBe(1);
    expect(ttlSecondsOf(0n)).toBe(1);
    expect(ttlSecondsOf(-5000n)).toBe(1);
    expect(ttlSecondsOf(2_500n)).toBe(3);
  });
  it('seqBucketOf groups 1024 seqs per record partition', () => {
    expect([0n, 1023n, 1024n, 5000n].map(seqBucketOf)).toEqual([0n, 0n, 1n, 4n]);
  });
  it('mapBounded keeps order and never exceeds its limit', async () => {
    let inFlight = 0;
    let peak = 0;
    const out = await mapBounded([5, 1, 4, 2, 3], 2, async (x) => {
      peak = Math.max(peak, ++inFlight);
      await new Promise((r) => setTimeout(r, x));
      inFlight--;
      return x * 2;
    });
    expect(out).toEqual([10, 2, 8, 4, 6]);
    expect(peak).toBe(2);
  });
});
