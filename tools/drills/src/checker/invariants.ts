import type { InvariantRow, MailboxRead, Observations, SeenEntry, SeenMessage, SendAnswer, SendRecord } from './model';
import { messageKey } from './model';

const MAX_EXAMPLES = 5;

class Row {
  checked = 0;
  violations = 0;
  readonly examples: string[] = [];
  constructor(readonly name: string) {}
  check(ok: boolean, what: () => string): void {
    this.checked += 1;
    if (ok) return;
    this.violations += 1;
    if (this.examples.length < MAX_EXAMPLES) this.examples.push(what());
  }
  done(): InvariantRow {
    return { name: this.name, checked: this.checked, violations: this.violations, examples: this.examples };
  }
}

/** The result of a check: the table rows and the two headline counts. */
export interface Verdict {
  readonly rows: readonly InvariantRow[];
  /** ACKed messages missing from history or from a stable member's mailbox. */
  readonly lost: number;
  /** Messages written or delivered more than once. */
  readonly duplicated: number;
  readonly pass: boolean;
}

/** The answer a send is judged by: its first answer, from the load or from the resolution. */
export function canonicalAnswer(s: SendRecord): SendAnswer | null {
  return s.answers[0] ?? s.resolution[0] ?? null;
}

function sameAnswer(a: SendAnswer, b: SendAnswer): boolean {
  return a.seq === b.seq && a.messageId === b.messageId && a.createdAt === b.createdAt;
}

function keysOf(entries: readonly SeenEntry[]): string[] {
  return entries.flatMap((e) => e.messages.map((m) => messageKey(m.conversationId, m.seq)));
}

function countBy<T>(items: readonly T[]): Map<T, number> {
  const m = new Map<T, number>();
  for (const i of items) m.set(i, (m.get(i) ?? 0) + 1);
  return m;
}

function sameRead(a: MailboxRead, b: MailboxRead): boolean {
  if (a.kind !== 'entries' || b.kind !== 'entries') return a.kind === b.kind;
  if (a.entries.length !== b.entries.length) return false;
  return a.entries.every((e, i) => e.seq === b.entries[i]!.seq && keysOf([e]).join() === keysOf([b.entries[i]!]).join());
}

/**
 * Checks every promise of the product on what the checker recorded and read back after quiescence.
 * Pure: the same observations always give the same verdict.
 */
export function checkInvariants(obs: Observations): Verdict {
  let lost = 0;
  let duplicated = 0;
  const allHistory: SeenMessage[] = [...obs.history.values()].flat();
  const byClientId = new Map<string, SeenMessage[]>();
  for (const m of allHistory) if (m.clientMessageId !== null) byClientId.set(m.clientMessageId, [...(byClientId.get(m.clientMessageId) ?? []), m]);
  const byKey = new Map(allHistory.map((m) => [messageKey(m.conversationId, m.seq), m]));

  const acked = new Row('acked message in history exactly once (seq, id, body)');
  for (const s of obs.sends) {
    const a = canonicalAnswer(s);
    if (a === null) continue;
    const found = (byClientId.get(s.clientMessageId) ?? []).filter((m) => m.conversationId === s.conversationId);
    if (found.length === 0) lost += 1;
    if (found.length > 1) duplicated += found.length - 1;
    const m = found[0];
    acked.check(
      found.length === 1 && m!.seq === a.seq && m!.messageId === a.messageId && m!.body === s.body,
      () => `${s.clientMessageId}: ${found.length} in history, acked seq ${a.seq} id ${a.messageId}${m ? `, stored seq ${m.seq} id ${m.messageId}` : ''}`,
    );
  }

  const seqUnique = new Row('no seq or message id used twice in a conversation');
  for (const [conv, msgs] of obs.history) {
    const seqs = countBy(msgs.map((m) => m.seq));
    const ids = countBy(msgs.map((m) => m.messageId));
    for (const m of msgs)
      seqUnique.check(
        seqs.get(m.seq) === 1 && ids.get(m.messageId) === 1,
        () => `${conv} seq ${m.seq} / id ${m.messageId} appears ${seqs.get(m.seq)}/${ids.get(m.messageId)} times`,
      );
  }

  const answered = new Set(obs.sends.flatMap((s) => [...s.answers, ...s.resolution].map((a) => a.messageId)));
  const onlySent = new Row('every stored message was answered to a sender');
  for (const m of allHistory) onlySent.check(answered.has(m.messageId), () => `${messageKey(m.conversationId, m.seq)} id ${m.messageId} was never answered`);

  const identical = new Row('retries and duplicates answered identically');
  for (const s of obs.sends) {
    const all = [...s.answers, ...s.resolution];
    if (all.length < 2) continue;
    const fresh = all.filter((a) => !a.replay).length;
    identical.check(
      all.every((a) => sameAnswer(a, all[0]!)) && fresh <= 1,
      () => `${s.clientMessageId}: answers ${all.map((a) => `${a.via}:${a.seq}/${a.messageId.slice(0, 8)}${a.replay ? 'r' : ''}`).join(' ')}`,
    );
  }

  const refused = new Row('refused requests (403/409) wrote nothing');
  for (const s of obs.sends) {
    if (!s.expectForbidden && s.outcome !== 'refused') continue;
    const stored = byClientId.get(s.clientMessageId) ?? [];
    refused.check(
      s.outcome === 'refused' && stored.length === 0,
      () => `${s.clientMessageId}: ${s.expectForbidden ? 'non-member ' : ''}send was ${s.outcome}, ${stored.length} stored`,
    );
  }
  for (const p of obs.probes) {
    const stored = byClientId.get(p.clientMessageId) ?? [];
    refused.check(
      p.code === 'CONFLICT' && stored.every((m) => m.body !== p.otherBody),
      () => `${p.clientMessageId}: other body answered ${p.code}, stored bodies ${stored.map((m) => m.body).join('|')}`,
    );
  }

  const resolved = new Row('sends failed during a fault answered when repeated');
  for (const s of obs.sends)
    if (s.outcome === 'failed-clean') resolved.check(s.resolution.length > 0, () => `${s.clientMessageId}: errors ${s.errors.join(',')}, no answer on repeat`);

  const mailboxOnce = new Row('member mailbox: one entry per message');
  const expired = new Row('member mailbox: CURSOR_EXPIRED instead (accepted)');
  const pagedLarge = new Row('mailbox paged (small limit) = one large read');
  const mailboxSeq = new Row('mailbox entry seqs strictly increasing');
  const churn = new Row('changing member: at most one entry, own conversations only');
  for (const mb of obs.mailboxes) {
    pagedLarge.check(sameRead(mb.paged, mb.large), () => `${mb.userId}: paged and large reads differ`);
    if (mb.paged.kind === 'expired') {
      expired.check(true, () => '');
      continue;
    }
    const entries = mb.paged.entries;
    entries.forEach((e, i) => mailboxSeq.check(i === 0 || e.seq > entries[i - 1]!.seq, () => `${mb.userId}: entry seq ${e.seq} after ${entries[i - 1]!.seq}`));
    const seen = new Map<string, SeenMessage>();
    for (const e of entries) for (const m of e.messages) seen.set(messageKey(m.conversationId, m.seq), m);
    const counts = countBy(keysOf(entries));
    for (const n of counts.values()) if (n > 1) duplicated += n - 1;
    if (mb.stable) {
      const expected = allHistory.filter((m) => mb.conversations.has(m.conversationId)).map((m) => messageKey(m.conversationId, m.seq));
      for (const k of expected) {
        const n = counts.get(k) ?? 0;
        if (n === 0) lost += 1;
        mailboxOnce.check(n === 1 && seen.get(k)!.messageId === byKey.get(k)!.messageId, () => `${mb.userId}: ${k} delivered ${n} times`);
      }
      const foreign = [...counts.keys()].filter((k) => !byKey.has(k) || !mb.conversations.has(k.split('/')[0]!));
      for (const k of foreign) mailboxOnce.check(false, () => `${mb.userId}: ${k} is not a message of its conversations`);
    } else {
      for (const [k, n] of counts)
        churn.check(
          n === 1 && byKey.has(k) && mb.conversations.has(k.split('/')[0]!) && seen.get(k)!.messageId === byKey.get(k)!.messageId,
          () => `${mb.userId}: ${k} delivered ${n} times${byKey.has(k) ? '' : ' (not in history)'}`,
        );
    }
  }

  const devices = new Row('live device (long poll): each message once, complete');
  for (const d of obs.devices) {
    const counts = countBy(d.received);
    for (const [k, n] of counts) {
      if (n > 1) duplicated += n - 1;
      devices.check(n === 1 && byKey.has(k), () => `${d.userId} device: ${k} received ${n} times${byKey.has(k) ? '' : ' (not in history)'}`);
    }
    d.entrySeqs.forEach((s, i) => devices.check(i === 0 || s > d.entrySeqs[i - 1]!, () => `${d.userId} device: entry seq ${s} after ${d.entrySeqs[i - 1]}`));
    if (d.stable && d.resyncs.length === 0) {
      const mb = obs.mailboxes.find((m) => m.userId === d.userId);
      const expected = mb ? allHistory.filter((m) => mb.conversations.has(m.conversationId)) : [];
      for (const m of expected)
        devices.check(counts.has(messageKey(m.conversationId, m.seq)), () => `${d.userId} device: never received ${messageKey(m.conversationId, m.seq)}`);
    }
  }

  const rows = [acked, seqUnique, onlySent, identical, refused, resolved, mailboxOnce, expired, pagedLarge, mailboxSeq, churn, devices].map((r) => r.done());
  return { rows, lost, duplicated, pass: lost === 0 && duplicated === 0 && rows.every((r) => r.violations === 0) };
}
