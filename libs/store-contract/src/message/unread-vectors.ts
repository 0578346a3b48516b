import type { MessageKind } from '@qim/store-core';

/** One message of an unread vector, in seq order (seqs 1, 2, … are issued in this order). */
export interface UnreadVectorMessage {
  /** `self` = sent by the viewer; `other` = sent by someone else. */
  readonly from: 'self' | 'other';
  readonly kind: MessageKind;
  readonly control: boolean;
  /** False = reserved but never recorded: a hole in seq, no index row. */
  readonly recorded: boolean;
}

/**
 * A shared unread test vector (Memory, Redis and Scylla run the same table). `expected` is what
 * `conversationSummaries` must answer for the viewer with `readSeq`.
 */
export interface UnreadVector {
  readonly name: string;
  readonly messages: readonly UnreadVectorMessage[];
  readonly readSeq: bigint;
  readonly expected: { readonly headSeq: bigint; readonly unread: number; readonly precise: boolean };
}

const msg = (from: 'self' | 'other', kind: MessageKind = 'normal', control = false): UnreadVectorMessage => ({ from, kind, control, recorded: true });
const other = (kind: MessageKind = 'normal'): UnreadVectorMessage => msg('other', kind);
const self = (kind: MessageKind = 'normal'): UnreadVectorMessage => msg('self', kind);
const control = (kind: MessageKind = 'normal'): UnreadVectorMessage => msg('other', kind, true);
const hole: UnreadVectorMessage = { from: 'other', kind: 'normal', control: false, recorded: false };
const times = (n: number, f: (i: number) => UnreadVectorMessage): UnreadVectorMessage[] => Array.from({ length: n }, (_, i) => f(i));

/** The shared table. Counts only: sender ≠ viewer, kind normal|edited, not control, seq > readSeq; window = 100 index rows. */
export const UNREAD_VECTORS: readonly UnreadVector[] = [
  { name: 'empty conversation', messages: [], readSeq: 0n, expected: { headSeq: 0n, unread: 0, precise: true } },
  { name: 'three from others', messages: [other(), other(), other()], readSeq: 0n, expected: { headSeq: 3n, unread: 3, precise: true } },
  {
    name: 'own messages never count',
    messages: [self(), other(), self('edited'), self()],
    readSeq: 0n,
    expected: { headSeq: 4n, unread: 1, precise: true },
  },
  {
    name: 'control messages never count',
    messages: [control(), control('edited'), other(), control()],
    readSeq: 0n,
    expected: { headSeq: 4n, unread: 1, precise: true },
  },
  {
    name: 'only normal and edited count',
    messages: [other('normal'), other('edited'), other('recalled'), other('system')],
    readSeq: 0n,
    expected: { headSeq: 4n, unread: 2, precise: true },
  },
  { name: 'read messages do not count', messages: times(5, () => other()), readSeq: 3n, expected: { headSeq: 5n, unread: 2, precise: true } },
  { name: 'read up to the head', messages: times(4, () => other()), readSeq: 4n, expected: { headSeq: 4n, unread: 0, precise: true } },
  { name: 'readSeq beyond the head', messages: [other(), other()], readSeq: 10n, expected: { headSeq: 2n, unread: 0, precise: true } },
  {
    name: 'holes in seq are legal and are not rows',
    messages: [other(), hole, other(), hole, other(), hole],
    readSeq: 2n,
    expected: { headSeq: 5n, unread: 2, precise: true },
  },
  {
    name: 'exactly 100 rows after readSeq is precise',
    messages: times(100, () => other()),
    readSeq: 0n,
    expected: { headSeq: 100n, unread: 100, precise: true },
  },
  {
    name: '101 rows after readSeq: the limit, not precise',
    messages: times(101, (i) => (i % 2 === 0 ? self() : other())),
    readSeq: 0n,
    expected: { headSeq: 101n, unread: 100, precise: false },
  },
  {
    name: 'the window counts index rows after readSeq, holes excluded',
    messages: [...times(3, () => other()), ...times(101, (i) => (i === 50 ? hole : i % 4 === 0 ? self() : other()))],
    readSeq: 3n,
    expected: { headSeq: 104n, unread: 74, precise: true },
  },
];
