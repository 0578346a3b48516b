import { checkInvariants } from './invariants';
import type { MailboxObservation, Observations, SeenEntry, SeenMessage, SendRecord } from './model';
import { messageKey } from './model';

const CONV = 'c'.repeat(32);
const ALICE = 'a'.repeat(32);
const BOB = 'b'.repeat(32);
const CAROL = 'd'.repeat(32);

function send(i: number, over: Partial<SendRecord> = {}): SendRecord {
  return {
    conversationId: CONV,
    senderId: ALICE,
    clientMessageId: `${i}`.padStart(32, 'e'),
    body: `body ${i}`,
    expectForbidden: false,
    outcome: 'acked',
    answers: [{ seq: BigInt(i), messageId: `${i}`.padStart(32, 'f'), createdAt: 1000n + BigInt(i), replay: false, via: 'writer-1' }],
    errors: [],
    resolution: [],
    ...over,
  };
}

function stored(s: SendRecord): SeenMessage {
  const a = s.answers[0] ?? s.resolution[0]!;
  return { conversationId: s.conversationId, seq: a.seq, messageId: a.messageId, clientMessageId: s.clientMessageId, body: s.body, createdAt: a.createdAt };
}

const entries = (msgs: readonly SeenMessage[]): SeenEntry[] => msgs.map((m, i) => ({ seq: BigInt(i + 1), messages: [m] }));

function mailbox(userId: string, msgs: readonly SeenMessage[], stable = true): MailboxObservation {
  const read = { kind: 'entries', entries: entries(msgs) } as const;
  return { userId, stable, conversations: new Set([CONV]), paged: read, large: read };
}

/** Three acked sends, fully stored and delivered to two stable members and one live device. */
function healthy(): Observations {
  const sends = [send(1), send(2), send(3)];
  const history = sends.map(stored);
  return {
    sends,
    probes: [],
    history: new Map([[CONV, history]]),
    mailboxes: [mailbox(ALICE, history), mailbox(BOB, history)],
    devices: [{ userId: ALICE, stable: true, received: history.map((m) => messageKey(m.conversationId, m.seq)), entrySeqs: [1n, 2n, 3n], resyncs: [] }],
  };
}

const violated = (obs: Observations): string[] =>
  checkInvariants(obs)
    .rows.filter((r) => r.violations > 0)
    .map((r) => r.name);

describe('checkInvariants', () => {
  it('passes consistent observations and counts what it checked', () => {
    const v = checkInvariants(healthy());
    expect(v.pass).toBe(true);
    expect(v.lost).toBe(0);
    expect(v.duplicated).toBe(0);
    expect(v.rows.find((r) => r.name.startsWith('acked'))!.checked).toBe(3);
    expect(v.rows.find((r) => r.name.startsWith('member mailbox: one'))!.checked).toBe(6);
  });

  it('an acked message missing from history is lost', () => {
    const obs = healthy();
    const v = checkInvariants({ ...obs, history: new Map([[CONV, obs.history.get(CONV)!.slice(0, 2)]]) });
    expect(v.pass).toBe(false);
    expect(v.lost).toBeGreaterThanOrEqual(1);
    expect(v.rows.find((r) => r.name.startsWith('acked'))!.violations).toBe(1);
  });

  it('a client message id stored twice is duplicated', () => {
    const obs = healthy();
    const h = obs.history.get(CONV)!;
    const twice = { ...h[0]!, seq: 4n, messageId: '9'.repeat(32) };
    const v = checkInvariants({ ...obs, history: new Map([[CONV, [...h, twice]]]) });
    expect(v.duplicated).toBe(1);
    expect(violated({ ...obs, history: new Map([[CONV, [...h, twice]]]) })).toEqual(
      expect.arrayContaining(['acked message in history exactly once (seq, id, body)', 'every stored message was answered to a sender']),
    );
  });

  it('a stored seq other than the acked one is a violation', () => {
    const obs = healthy();
    const h = obs.history.get(CONV)!.map((m, i) => (i === 0 ? { ...m, seq: 7n } : m));
    expect(violated({ ...obs, history: new Map([[CONV, h]]) })).toContain('acked message in history exactly once (seq, id, body)');
  });

  it('a seq used twice in a conversation is a violation', () => {
    const obs = healthy();
    const h = obs.history.get(CONV)!.map((m, i) => (i === 1 ? { ...m, seq: 1n } : m));
    expect(violated({ ...obs, history: new Map([[CONV, h]]) })).toContain('no seq or message id used twice in a conversation');
  });

  it('a repeat answered differently is a violation', () => {
    const obs = healthy();
    const s = obs.sends[0]!;
    s.answers.push({ ...s.answers[0]!, messageId: '8'.repeat(32), replay: true, via: 'writer-2' });
    expect(violated(obs)).toEqual(['retries and duplicates answered identically']);
  });

  it('a refused send that was stored, and a 409 probe that was accepted, are violations', () => {
    const obs = healthy();
    const refused = send(4, { senderId: CAROL, expectForbidden: true, outcome: 'refused', answers: [], errors: ['FORBIDDEN'] });
    expect(violated({ ...obs, sends: [...obs.sends, refused] })).toEqual([]);
    const leaked = { ...stored(send(4)), clientMessageId: refused.clientMessageId };
    expect(violated({ ...obs, sends: [...obs.sends, refused], history: new Map([[CONV, [...obs.history.get(CONV)!, leaked]]]) })).toContain(
      'refused requests (403/409) wrote nothing',
    );
    expect(violated({ ...obs, probes: [{ conversationId: CONV, clientMessageId: obs.sends[0]!.clientMessageId, otherBody: 'x', code: 'ACCEPTED' }] })).toEqual([
      'refused requests (403/409) wrote nothing',
    ]);
  });

  it('a send that failed during the fault and never answered on repeat is a violation', () => {
    const obs = healthy();
    const failed = send(4, { outcome: 'failed-clean', answers: [], errors: ['UNAVAILABLE'] });
    expect(violated({ ...obs, sends: [...obs.sends, failed] })).toEqual(['sends failed during a fault answered when repeated']);
  });

  it('a member mailbox missing or repeating a message is lost / duplicated', () => {
    const obs = healthy();
    const h = obs.history.get(CONV)!;
    const missing = checkInvariants({ ...obs, mailboxes: [mailbox(ALICE, h), mailbox(BOB, h.slice(1))] });
    expect(missing.lost).toBe(1);
    const dup = checkInvariants({ ...obs, mailboxes: [mailbox(ALICE, h), mailbox(BOB, [...h, h[0]!])] });
    expect(dup.duplicated).toBe(1);
    expect(dup.pass).toBe(false);
  });

  it('a paged read that differs from the large read is a violation; an expired cursor is accepted', () => {
    const obs = healthy();
    const h = obs.history.get(CONV)!;
    const differ: MailboxObservation = { ...mailbox(BOB, h), large: { kind: 'entries', entries: entries(h.slice(0, 2)) } };
    expect(violated({ ...obs, mailboxes: [mailbox(ALICE, h), differ] })).toEqual(['mailbox paged (small limit) = one large read']);
    const expired: MailboxObservation = {
      ...mailbox(BOB, h),
      paged: { kind: 'expired', code: 'CURSOR_EXPIRED' },
      large: { kind: 'expired', code: 'CURSOR_EXPIRED' },
    };
    const v = checkInvariants({ ...obs, mailboxes: [mailbox(ALICE, h), expired] });
    expect(v.pass).toBe(true);
    expect(v.rows.find((r) => r.name.includes('CURSOR_EXPIRED'))!.checked).toBe(1);
  });

  it('a live device receiving a message twice, or never, is a violation', () => {
    const obs = healthy();
    const d = obs.devices[0]!;
    expect(violated({ ...obs, devices: [{ ...d, received: [...d.received, d.received[0]!] }] })).toEqual([
      'live device (long poll): each message once, complete',
    ]);
    expect(violated({ ...obs, devices: [{ ...d, received: d.received.slice(1) }] })).toEqual(['live device (long poll): each message once, complete']);
  });

  it('a changing member may miss messages but never gets one twice or a foreign one', () => {
    const obs = healthy();
    const h = obs.history.get(CONV)!;
    expect(violated({ ...obs, mailboxes: [...obs.mailboxes, mailbox(CAROL, h.slice(1), false)] })).toEqual([]);
    expect(violated({ ...obs, mailboxes: [...obs.mailboxes, mailbox(CAROL, [h[1]!, h[1]!], false)] })).toEqual([
      'changing member: at most one entry, own conversations only',
    ]);
  });
});
