import { growsByDesign, redisStructureOf } from './structures';
import type { AckedMessage, StorageSample } from './checker';
import { DeviceView, LoopHealth, checkBounded, checkHistory, checkReplay, checkStall } from './checker';
import { tableDays } from './report';

const DAY = 86_400_000n;

function msg(
  id: string,
  seq: bigint,
  createdAt: bigint,
  opts: { recipients?: string[]; ephemeralMs?: bigint | null; conversationId?: string } = {},
): AckedMessage {
  return {
    messageId: id,
    conversationId: opts.conversationId ?? 'c1',
    seq,
    createdAt,
    recipients: opts.recipients ?? ['u1', 'u2'],
    ephemeralMs: opts.ephemeralMs ?? null,
  };
}

describe('checkReplay', () => {
  it('passes when the replay returns the first seq and message id', () => {
    expect(checkReplay(msg('m1', 3n, 0n), { messageId: 'm1', seq: 3n })).toEqual([]);
  });
  it('fails on another seq or another message id', () => {
    expect(checkReplay(msg('m1', 3n, 0n), { messageId: 'm1', seq: 4n })).toHaveLength(1);
    expect(checkReplay(msg('m1', 3n, 0n), { messageId: 'm2', seq: 3n })).toHaveLength(1);
  });
});

describe('checkHistory', () => {
  const acked = [msg('m1', 1n, 0n), msg('m2', 2n, 10n, { ephemeralMs: DAY })];
  const none = new Set<string>();

  it('passes when every retained message is there once at its seq', () => {
    expect(
      checkHistory(
        'c1',
        [
          { seq: 1n, messageId: 'm1' },
          { seq: 2n, messageId: 'm2' },
        ],
        acked,
        none,
        100n,
        0n,
      ),
    ).toEqual([]);
  });
  it('reports a missing ACKed message', () => {
    expect(checkHistory('c1', [{ seq: 2n, messageId: 'm2' }], acked, none, 100n, 0n)).toEqual(['history c1: ACKed message m1 (seq 1) missing']);
  });
  it('reports a message returned twice and a seq returned twice', () => {
    const out = checkHistory(
      'c1',
      [
        { seq: 1n, messageId: 'm1' },
        { seq: 1n, messageId: 'm1' },
        { seq: 2n, messageId: 'm2' },
      ],
      acked,
      none,
      100n,
      0n,
    );
    expect(out).toEqual(expect.arrayContaining(['history c1: seq 1 returned 2 times', 'history c1: message m1 returned 2 times']));
  });
  it('reports a message at another seq than its ACK', () => {
    expect(
      checkHistory(
        'c1',
        [
          { seq: 1n, messageId: 'm1' },
          { seq: 5n, messageId: 'm2' },
        ],
        acked,
        none,
        100n,
        0n,
      ),
    ).toEqual(['history c1: message m2 at seq 5, ACKed with seq 2']);
  });
  it('lets an ephemeral message go once expired, and requires it gone on a clock-driven store', () => {
    const after = 10n + DAY;
    expect(checkHistory('c1', [{ seq: 1n, messageId: 'm1' }], acked, none, after, 0n)).toEqual([]);
    expect(
      checkHistory(
        'c1',
        [
          { seq: 1n, messageId: 'm1' },
          { seq: 2n, messageId: 'm2' },
        ],
        acked,
        none,
        after,
        0n,
      ),
    ).toEqual(['history c1: ephemeral message m2 returned after its expiry']);
    // a server-TTL store driven by a simulated clock may still return it
    expect(
      checkHistory(
        'c1',
        [
          { seq: 1n, messageId: 'm1' },
          { seq: 2n, messageId: 'm2' },
        ],
        acked,
        none,
        after,
        0n,
        false,
      ),
    ).toEqual([]);
  });
  it('requires an ephemeral message while it lives', () => {
    expect(checkHistory('c1', [{ seq: 1n, messageId: 'm1' }], acked, none, 9n + DAY, 0n)).toEqual(['history c1: ACKed message m2 (seq 2) missing']);
  });
  it('accepts an unACKed row only when it is pending (recovered before the retry)', () => {
    const rows = [
      { seq: 1n, messageId: 'm1' },
      { seq: 2n, messageId: 'm2' },
      { seq: 3n, messageId: 'm3' },
    ];
    expect(checkHistory('c1', rows, acked, none, 100n, 0n)).toEqual(['history c1: message m3 was never sent']);
    expect(checkHistory('c1', rows, acked, new Set(['m3']), 100n, 0n)).toEqual([]);
  });
  it('reports rows out of order', () => {
    expect(
      checkHistory(
        'c1',
        [
          { seq: 2n, messageId: 'm2' },
          { seq: 1n, messageId: 'm1' },
        ],
        acked,
        none,
        100n,
        0n,
      ),
    ).toEqual(['history c1: seq 1 after 2 (not ascending)']);
  });
});

describe('DeviceView', () => {
  const retention = 3n * DAY;
  const known = (): boolean => true;

  it('passes when every owed message was delivered once', () => {
    const owed = [msg('m1', 1n, 10n), msg('m2', 2n, 20n)];
    const d = new DeviceView('d', 'u1');
    d.record({ kind: 'pages', messageIds: ['m1', 'm2'], seqs: [5n, 6n] }, 100n, retention, 0n, owed);
    expect(d.expectations(owed, known)).toEqual([]);
  });
  it('reports a silent skip: an owed message missing without CURSOR_EXPIRED', () => {
    const owed = [msg('m1', 1n, 10n), msg('m2', 2n, 20n)];
    const d = new DeviceView('d', 'u1');
    d.record({ kind: 'pages', messageIds: ['m1'], seqs: [5n] }, 100n, retention, 0n, owed);
    expect(d.expectations(owed, known)).toEqual(['d: ACKed message m2 (conversation c1 seq 2) silently missing from the mailbox']);
  });
  it('excuses what a CURSOR_EXPIRED answer covered, not what came after it', () => {
    const owedBefore = [msg('m1', 1n, 10n), msg('m2', 2n, 20n)];
    const d = new DeviceView('d', 'u1');
    d.record({ kind: 'pages', messageIds: ['m1'], seqs: [5n] }, 100n, retention, 0n, owedBefore);
    d.record({ kind: 'cursor-expired' }, 5n * DAY, retention, 0n, owedBefore);
    // the fresh sync after the reset owes only what is still retained; m3 came later and is missing
    const owedAfter = [...owedBefore, msg('m3', 3n, 5n * DAY - 10n)];
    d.record({ kind: 'pages', messageIds: [], seqs: [] }, 5n * DAY, retention, 0n, owedAfter);
    expect(d.expectations(owedAfter, known)).toEqual(['d: ACKed message m3 (conversation c1 seq 3) silently missing from the mailbox']);
    expect(d.expiredCount).toBe(1);
  });
  it('owes a first sync only what is still retained', () => {
    const owed = [msg('old', 1n, 0n), msg('new', 2n, 9n * DAY)];
    const d = new DeviceView('d', 'u1');
    d.record({ kind: 'pages', messageIds: ['new'], seqs: [9n] }, 10n * DAY, retention, 0n, owed);
    expect(d.expectations(owed, known)).toEqual([]);
  });
  it('owes a first sync in a later epoch what was created since the epoch began, still retained or not', () => {
    const bump = 10n * DAY;
    const owed = [msg('old-epoch', 1n, bump - 10n), msg('new-epoch', 2n, bump + 10n)];
    const d = new DeviceView('d', 'u1');
    d.record({ kind: 'pages', messageIds: ['new-epoch'], seqs: [9n] }, bump + DAY, retention, 0n, owed, bump);
    expect(d.expectations(owed, known)).toEqual([]);
    const skipped = new DeviceView('s', 'u1');
    skipped.record({ kind: 'pages', messageIds: [], seqs: [] }, bump + DAY, retention, 0n, owed, bump);
    expect(skipped.expectations(owed, known)).toEqual(['s: ACKed message new-epoch (conversation c1 seq 2) silently missing from the mailbox']);
  });
  it('reports a duplicate under one cursor, not across a reset', () => {
    const owed = [msg('m1', 1n, 10n)];
    const d = new DeviceView('d', 'u1');
    d.record({ kind: 'pages', messageIds: ['m1'], seqs: [5n] }, 100n, retention, 0n, owed);
    d.record({ kind: 'pages', messageIds: ['m1'], seqs: [6n] }, 200n, retention, 0n, owed);
    expect(d.expectations(owed, known)).toEqual(['d: message m1 delivered twice under one cursor']);
    d.record({ kind: 'cursor-expired' }, 300n, retention, 0n, owed);
    d.record({ kind: 'pages', messageIds: ['m1'], seqs: [5n] }, 300n, retention, 0n, owed);
    expect(d.expectations(owed, known)).toEqual([]);
  });
  it('reports seqs going backwards and deliveries of unknown messages', () => {
    const d = new DeviceView('d', 'u1');
    d.record({ kind: 'pages', messageIds: ['x', 'y'], seqs: [7n, 6n] }, 100n, retention, 0n, []);
    expect(d.expectations([], (id) => id === 'x')).toEqual(['d: mailbox seq 6 delivered after 7', 'd: delivered message y was never sent']);
  });
  it('owes nothing before its first sync', () => {
    const d = new DeviceView('d', 'u1');
    expect(d.hasCursor).toBe(false);
    expect(d.expectations([msg('m1', 1n, 10n)], known)).toEqual([]);
  });
});

describe('checkBounded', () => {
  const series = (name: string, values: number[]): StorageSample[] => values.map((v, i) => ({ day: i, counts: { [name]: v, history: i * 1000 } }));
  const exempt = (n: string): boolean => n === 'history';

  it('passes a structure that is flat after the steady day (and an exempt one that grows)', () => {
    expect(checkBounded(series('entries', [0, 100, 200, 300, 310, 300, 305, 298, 302]), 3, exempt)).toEqual([]);
  });
  it('fails a structure that keeps growing after the steady day', () => {
    expect(checkBounded(series('entries', [0, 100, 200, 300, 400, 500, 600, 700, 800]), 3, exempt)).toEqual([
      'storage: entries keeps growing after day 3: mean 350 → 750',
    ]);
  });
  it('fails the exempt structure when it is not exempt', () => {
    expect(checkBounded(series('entries', [0, 1, 1, 1, 1, 1, 1]), 3, () => false)).toEqual(['storage: history keeps growing after day 3: mean 3000 → 6000']);
  });
  it('refuses to judge with fewer than 3 steady days', () => {
    expect(checkBounded(series('entries', [0, 1, 2, 3]), 3, exempt)).toEqual(['storage: only 1 simulated day(s) after day 3; need ≥ 3 to judge flatness']);
  });
});

describe('LoopHealth', () => {
  it('reports a loop that throws 3 times in a row, once', () => {
    const h = new LoopHealth(3);
    h.ran('recovery', new Error('boom'));
    h.ran('recovery', new Error('boom'));
    h.ran('recovery', null);
    h.ran('recovery', new Error('boom'));
    h.ran('recovery', new Error('boom'));
    expect(h.failures).toEqual([]);
    h.ran('recovery', new Error('boom'));
    h.ran('recovery', new Error('boom'));
    expect(h.failures).toEqual(['loop recovery threw 3 times in a row: Error: boom']);
    expect(h.totals()).toEqual({ recovery: 6 });
  });
});

describe('checkStall', () => {
  it('allows a stall up to one loop interval and reports a longer one', () => {
    expect(checkStall(2, null, 10_000n, 3_600_000n)).toEqual([]);
    expect(checkStall(2, 0n, 3_600_000n, 3_600_000n)).toEqual([]);
    expect(checkStall(2, 0n, 3_600_001n, 3_600_000n)).toEqual(['shard 2 stalled for 3600001 ms (> one loop interval, 3600000 ms)']);
  });
});

describe('redisStructureOf', () => {
  it('names a key by its structure: namespace dropped, hash-tag contents and ids replaced', () => {
    expect(redisStructureOf('ns', 'ns:{mu:0a1b2c3d4e5f60718293a4b5c6d7e8f9}:entry:0000800000000001')).toBe('{mu}:entry');
    expect(redisStructureOf('ns', 'ns:{cs:3}:aux')).toBe('{cs}:aux');
    expect(redisStructureOf('ns', 'ns:{mu:ab12cd34ef56}:day:1:20423')).toBe('{mu}:day');
  });
});

describe('tableDays', () => {
  it('shows every day of a short run and about ten of a long one, always the last', () => {
    expect(tableDays(Array.from({ length: 11 }, (_, day) => ({ day, counts: {} })))).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(tableDays(Array.from({ length: 46 }, (_, day) => ({ day, counts: {} })))).toEqual([0, 5, 10, 15, 20, 25, 30, 35, 40, 45]);
    expect(tableDays(Array.from({ length: 48 }, (_, day) => ({ day, counts: {} })))).toEqual([0, 5, 10, 15, 20, 25, 30, 35, 40, 45, 47]);
  });
});

describe('growsByDesign', () => {
  it('exempts only the history of default-retention messages', () => {
    expect(growsByDesign('memory', 'message_record')).toBe(true);
    expect(growsByDesign('memory', 'mailbox_entry')).toBe(false);
    expect(growsByDesign('redis', '{cv}:index members')).toBe(true);
    expect(growsByDesign('redis', '{mu}:entry keys')).toBe(false);
    expect(growsByDesign('scylla', 'history_index')).toBe(true);
    expect(growsByDesign('scylla', 'dispatch_index')).toBe(false);
  });
});
