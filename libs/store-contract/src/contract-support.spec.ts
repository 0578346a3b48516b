import { ConflictError, NotFoundError, UNREAD_PRECISE_LIMIT } from '@qim/store-core';
import { ManualClock } from '@qim/store-core/testing';
import { UNREAD_VECTORS } from './message/unread-vectors';
import { expectStoreError } from './support/expect-error';
import { TimeControl } from './support/time-control';

describe('shared unread vectors', () => {
  it.each(UNREAD_VECTORS.map((v) => [v.name, v] as const))('%s: expected values follow from the messages', (_name, v) => {
    const recorded = v.messages.map((m, i) => ({ ...m, seq: BigInt(i + 1) })).filter((m) => m.recorded);
    const head = recorded.length === 0 ? 0n : recorded[recorded.length - 1]!.seq;
    const after = recorded.filter((m) => m.seq > v.readSeq);
    const counted = after.filter((m) => m.from === 'other' && (m.kind === 'normal' || m.kind === 'edited') && !m.control).length;
    const expected =
      after.length > UNREAD_PRECISE_LIMIT ? { headSeq: head, unread: UNREAD_PRECISE_LIMIT, precise: false } : { headSeq: head, unread: counted, precise: true };
    expect(v.expected).toEqual(expected);
  });

  it('cover the window edges', () => {
    const rowsAfter = (v: (typeof UNREAD_VECTORS)[number]) => v.messages.filter((m, i) => m.recorded && BigInt(i + 1) > v.readSeq).length;
    const sizes = UNREAD_VECTORS.map(rowsAfter);
    expect(sizes).toContain(UNREAD_PRECISE_LIMIT);
    expect(sizes).toContain(UNREAD_PRECISE_LIMIT + 1);
  });
});

describe('expectStoreError', () => {
  it('returns the expected domain error', async () => {
    const e = new ConflictError('x');
    expect(await expectStoreError(Promise.reject(e), ConflictError)).toBe(e);
  });
  it('fails when the call resolves or rejects with another error', async () => {
    await expect(expectStoreError(Promise.resolve(1), ConflictError)).rejects.toThrow('resolved');
    await expect(expectStoreError(Promise.reject(new NotFoundError('n')), ConflictError)).rejects.toThrow('got NotFoundError');
  });
});

describe('TimeControl', () => {
  it('moves a manual clock forward only', async () => {
    const clock = new ManualClock(1_000n);
    const t = new TimeControl(clock);
    await t.reach(5_000n);
    await t.reach(2_000n);
    await t.pass(10n);
    expect(t.now()).toBe(5_010n);
    expect(t.manual).toBe(true);
  });
  it('refuses long real-time waits', async () => {
    const t = new TimeControl(null);
    await expect(t.reach(t.now() + 60_000n)).rejects.toThrow('real-time wait');
    await expect(t.pass(60_000n)).rejects.toThrow('real-time wait');
  });
});
