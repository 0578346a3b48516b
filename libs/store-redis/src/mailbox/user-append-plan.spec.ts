import { DAY_MS, composeMailboxSeq, dayOf } from '@qim/store-core';
import type { Id128, RetentionMeta } from '@qim/store-core';
import { RedisKeys } from '../keys/redis-keys';
import { prepareEntry } from './prepared-entry';
import type { KnownMeta } from './meta-cache';
import { encodeRetentionMeta } from './stored-retention-meta';
import { FAST_PATH_SAFETY_MS, fastPathHorizon, planUserAppend } from './user-append-plan';

const id = (c: string): Id128 => c.repeat(32) as Id128;
const NOW = 1_700_000_000_000n;
const WEEK = 7n * DAY_MS;
const ctx = { keys: new RedisKeys('t').user(id('a'), id('b')), now: NOW, horizon: fastPathHorizon(NOW, 0n), graceMs: 1000n };
const entry = (offset: bigint, createdAt = NOW) =>
  prepareEntry(
    {
      tenantId: id('a'),
      userId: id('b'),
      mailboxSeq: composeMailboxSeq(1, offset),
      createdAt,
      events: [{ ordinal: 0, eventId: id('e'), payload: Buffer.from('x') }],
    },
    1,
    WEEK,
    1000n,
  );
const known = (m: RetentionMeta): KnownMeta => ({ raw: encodeRetentionMeta(m), meta: m });
const today = entry(1n);
const registered = known({
  version: 4,
  generation: 3n,
  inspectedThrough: null,
  gap: null,
  ledger: [{ day: today.day, maxSeq: today.seq, expiresAt: today.expiresAt }],
});

describe('planUserAppend', () => {
  it('a known meta whose ledger covers every entry’s day → fast mode, no meta', () => {
    const plan = planUserAppend(ctx, [entry(2n), entry(3n)], registered);
    if (plan.kind !== 'call') throw new Error('call expected');
    expect(plan.args[1]).toBe('f');
    expect(plan.args).toHaveLength(3 + 4);
    expect(plan).toMatchObject({ bucket: ctx.keys.bucket, written: 2, expired: 0, after: registered });
  });

  it('a new day, an unknown meta or an expired replay → compare-and-set with the applyAppend meta', () => {
    const tomorrow = entry(4n, NOW + DAY_MS);
    const plan = planUserAppend(ctx, [tomorrow], registered);
    if (plan.kind !== 'call') throw new Error('call expected');
    expect(plan.args[1]).toBe('c');
    expect(plan.after.meta?.ledger.map((i) => i.day)).toEqual([dayOf(NOW), dayOf(NOW) + 1]);
    expect(plan.after.meta?.generation).toBe(4n);
    const fresh = planUserAppend(ctx, [today], undefined);
    if (fresh.kind !== 'call') throw new Error('call expected');
    expect(fresh.args.slice(0, 3)).toEqual([ctx.keys.id, 'c', '1']);
    expect(fresh.args.slice(5, 10)).toEqual(['', '', '', '', '']);
    const old = planUserAppend(ctx, [entry(5n, NOW - 10n * DAY_MS)], registered);
    if (old.kind !== 'call') throw new Error('call expected');
    expect(old).toMatchObject({ written: 0, expired: 1 });
    expect(old.after.meta?.gap).toBe(composeMailboxSeq(1, 5n));
  });

  it('the fast path keeps the skew and the safety margin: an entry or day item expiring before the horizon → compare-and-set', () => {
    expect(fastPathHorizon(NOW, 60_000n)).toBe(NOW + 60_000n + FAST_PATH_SAFETY_MS);
    const e = entry(2n);
    const near = { ...ctx, now: e.expiresAt - FAST_PATH_SAFETY_MS, horizon: fastPathHorizon(e.expiresAt - FAST_PATH_SAFETY_MS, 0n) };
    const plan = planUserAppend(near, [e], registered);
    if (plan.kind !== 'call') throw new Error('call expected');
    expect(plan.args[1]).toBe('c');
    const skewed = { ...ctx, now: e.expiresAt - FAST_PATH_SAFETY_MS - 1n, horizon: fastPathHorizon(e.expiresAt - FAST_PATH_SAFETY_MS - 1n, 1n) };
    expect(planUserAppend(skewed, [e], registered)).toMatchObject({ kind: 'call', args: expect.arrayContaining(['c']) });
    const far = { ...ctx, now: e.expiresAt - FAST_PATH_SAFETY_MS - 2n, horizon: fastPathHorizon(e.expiresAt - FAST_PATH_SAFETY_MS - 2n, 1n) };
    const fast = planUserAppend(far, [e], registered);
    if (fast.kind !== 'call') throw new Error('call expected');
    expect(fast.args[1]).toBe('f');
  });

  it('a known meta with an expired ledger item → inspect first', () => {
    const expired = known({ version: 4, generation: 3n, inspectedThrough: null, gap: null, ledger: [{ day: today.day - 9, maxSeq: 1n, expiresAt: NOW }] });
    expect(planUserAppend(ctx, [today], expired)).toEqual({ kind: 'inspect' });
  });
});
