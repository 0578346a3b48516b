import type { Id128 } from '@qim/store-core';
import { RedisKeys } from '../keys/redis-keys';
import { expectClusterSafe } from '../testing/single-tag';
import {
  conversationSummaryCall,
  gcCommitAuxCall,
  gcHistoryCall,
  historyIndexMember,
  historyPageCall,
  isCountable,
  markCommittedCall,
  markOutboxedCall,
  markPublishedCommittedCall,
  markRecordedCall,
  putRecordCall,
  claimCommitCall,
  claimSeqCall,
  scanRecoveryCall,
} from './message-script-args';

const id = (c: string): Id128 => c.repeat(32) as Id128;
const keys = new RedisKeys('t');
const commit = keys.commit({ tenantId: id('a'), senderId: id('b'), clientMessageId: id('c') });
const conv = keys.conversation(id('a'), id('d'));
const NOW = 1_700_000_000_000n;

describe('message script argument builders', () => {
  it('reserve: claim-commit on the commit tag, claim-seq on the conversation tag; hex now/expiry, decimal scores, bytes as given', () => {
    const a = { now: NOW, identity: Buffer.alloc(32, 1), createdAt: NOW - 5n, auxExpiresAt: NOW + 7_200_000n, graceMs: 3_600_000n };
    const claim = claimCommitCall(commit, { ...a, request: Buffer.from('req'), recipients: Buffer.alloc(16, 2) });
    const seq = claimSeqCall(conv, commit.member, { ...a, messageId: id('e') });
    for (const call of [claim, seq]) expectClusterSafe(call);
    expect(claim.keys).toEqual([commit.hash, commit.recovery, commit.aux]);
    const expiryHex = (NOW + 7_200_000n).toString(16).padStart(16, '0');
    expect(claim.args).toEqual([
      '0000018bcfe56800',
      Buffer.alloc(32, 1),
      Buffer.from('req'),
      Buffer.alloc(16, 2),
      '1699999999995',
      expiryHex,
      '1700007200000',
      commit.member,
      '3600000',
    ]);
    expect(seq.keys).toEqual([conv.seq, conv.seqClaim(commit.member)]);
    expect(seq.args).toEqual([
      '0000018bcfe56800',
      Buffer.alloc(32, 1),
      id('e'),
      (NOW - 5n).toString(16).padStart(16, '0'),
      expiryHex,
      '1700007200000',
      '3600000',
    ]);
  });

  it('state moves carry the guards their scripts compare', () => {
    const a = markRecordedCall(commit, NOW, Buffer.alloc(32, 1), Buffer.alloc(16, 2), Buffer.from('i1'));
    const b = markOutboxedCall(commit, NOW, Buffer.from('i1'), Buffer.from('i2'));
    const c = markCommittedCall(commit, NOW);
    const d = markPublishedCommittedCall(commit, NOW, Buffer.from('i1'), Buffer.from('i2'));
    for (const call of [a, b, c, d]) expectClusterSafe(call);
    expect(a.args).toEqual(['0000018bcfe56800', Buffer.alloc(32, 1), Buffer.alloc(16, 2), Buffer.from('i1')]);
    expect(b.args).toEqual(['0000018bcfe56800', Buffer.from('i1'), Buffer.from('i2')]);
    expect(c.keys).toEqual([commit.hash, commit.recovery]);
    expect(c.args).toEqual(['0000018bcfe56800', commit.member]);
    expect(d.keys).toEqual([commit.hash, commit.recovery]);
    expect(d.args).toEqual(['0000018bcfe56800', Buffer.from('i1'), Buffer.from('i2'), commit.member]);
  });

  it('history index member: seq | expiry | countable | sender, fixed width so lex order = seq order', () => {
    const m = historyIndexMember(3n, null, true, id('b'));
    expect(m).toBe(`0000000000000003${'0'.repeat(16)}1${id('b')}`);
    expect(m).toHaveLength(65);
    expect(historyIndexMember(4n, 10n, false, id('b')).slice(16, 33)).toBe('000000000000000a0');
    expect(historyIndexMember(2n ** 40n, null, false, id('b')) > historyIndexMember(255n, null, false, id('b'))).toBe(true);
  });

  it('only normal and edited, not control, count as unread', () => {
    expect([
      isCountable('normal', false),
      isCountable('edited', false),
      isCountable('recalled', false),
      isCountable('system', false),
      isCountable('normal', true),
    ]).toEqual([true, true, false, false, false]);
  });

  it('put_record: ephemeral expiry as a decimal score, empty for other retention classes', () => {
    const base = { seq: 7n, record: Buffer.from('rec'), countable: true, senderId: id('b'), graceMs: 1000n, now: NOW, claim: Buffer.from('claim') };
    const eph = putRecordCall(conv, commit.member, { ...base, expiresAt: NOW + 1000n });
    const keep = putRecordCall(conv, commit.member, { ...base, expiresAt: null });
    for (const call of [eph, keep]) expectClusterSafe(call);
    expect(eph.keys).toEqual([conv.index, conv.record(7n), conv.expiry, conv.seqClaim(commit.member)]);
    expect(eph.args[3]).toBe('1700000001000');
    expect(eph.args.slice(5)).toEqual(['0000018bcfe56800', Buffer.from('claim')]);
    expect(keep.args[3]).toBe('');
    expect(keep.args[1]).toBe(historyIndexMember(7n, null, true, id('b')));
  });

  it('reads: history page, summary, recovery scan; housekeeping: aux and history GC', () => {
    const page = historyPageCall(conv, { direction: 'older', anchor: 5n, maxItems: 10, maxBytes: 100 }, NOW);
    expect(page.args).toEqual(['older', '0000000000000005', '10', '100', '0000018bcfe56800', conv.recordPrefix]);
    expect(historyPageCall(conv, { direction: 'newer', anchor: null, maxItems: 1, maxBytes: 1 }, NOW).args[1]).toBe('');
    const summary = conversationSummaryCall(conv, NOW, 0n, id('f'));
    expect(summary.args).toEqual(['0000018bcfe56800', '0000000000000000', '100', id('f'), conv.recordPrefix]);
    const shard = keys.commitShard(3);
    const scan = scanRecoveryCall(shard, NOW, NOW, 5, 1000);
    expect(scan.args).toEqual(['1700000000000', '0000018bcfe56800', '5', shard.commitPrefix, '1000']);
    const aux = gcCommitAuxCall(shard, NOW, 50);
    expect(aux.keys).toEqual([shard.aux, shard.recovery]);
    const hist = gcHistoryCall(conv, NOW, 50);
    expect(hist.keys).toEqual([conv.index, conv.expiry]);
    for (const call of [page, summary, scan, aux, hist]) expectClusterSafe(call);
  });
});
