import fc from 'fast-check';
import type { Id128 } from '../model/ids';
import type { DispatchRecord, MailboxEntry, MailboxEvent } from '../model/mailbox';
import { MAX_EPHEMERAL_TTL_SECONDS, MESSAGE_KINDS } from '../model/message';
import type { CommitIntent, MessageRecord, Publication, RetentionClass, SendRequest } from '../model/message';
import { U63_MAX } from '../model/u64';
import type { LedgerItem } from '../codecs/active-ledger';
import { canonicalizeEvents } from '../codecs/mailbox-entry';
import type { MessageEvent } from '../codecs/message-event';
import { commitKeyOf, requestIdentity } from '../codecs/send-request';

/** fast-check generators of valid codec values (test support only; not exported by the library). */
const rec = <T>(model: { [K in keyof T]: fc.Arbitrary<T[K]> }): fc.Arbitrary<T> => fc.record(model, { noNullPrototype: true });

export const idArb: fc.Arbitrary<Id128> = fc.uint8Array({ minLength: 16, maxLength: 16 }).map((b) => Buffer.from(b).toString('hex') as Id128);
export const u64Arb = fc.bigInt({ min: 0n, max: U63_MAX });
export const seqArb = fc.bigInt({ min: 1n, max: U63_MAX });
export const u32Arb = fc.integer({ min: 0, max: 0xffff_ffff });

export const sortedIdsArb = (maxLength: number): fc.Arbitrary<Id128[]> => fc.uniqueArray(idArb, { maxLength }).map((ids) => [...ids].sort());

export const retentionArb: fc.Arbitrary<RetentionClass> = fc.oneof(
  fc.constant<RetentionClass>({ kind: 'default' }),
  fc.integer({ min: 1, max: MAX_EPHEMERAL_TTL_SECONDS }).map((ttlSeconds): RetentionClass => ({ kind: 'ephemeral', ttlSeconds })),
  fc.constant<RetentionClass>({ kind: 'tenant_custom' }),
  fc.constant<RetentionClass>({ kind: 'compliance_hold' }),
);

export const contentTypeArb = fc
  .oneof(fc.string({ unit: 'binary', maxLength: 70 }), fc.string({ unit: 'grapheme-ascii', maxLength: 255 }))
  .filter((s) => Buffer.byteLength(s, 'utf8') <= 255);

export const bodyArb = fc.uint8Array({ maxLength: 48 });

export const sendRequestArb: fc.Arbitrary<SendRequest> = rec<SendRequest>({
  tenantId: idArb,
  senderId: idArb,
  clientMessageId: idArb,
  conversationId: idArb,
  kind: fc.constantFrom(...MESSAGE_KINDS),
  control: fc.boolean(),
  contentType: contentTypeArb,
  body: bodyArb,
  retention: retentionArb,
});

const topicChars = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-'];
export const publicationArb: fc.Arbitrary<Publication> = rec<Publication>({
  topic: fc.string({ unit: fc.constantFrom(...topicChars), minLength: 1, maxLength: 40 }),
  partition: fc.integer({ min: 0, max: 0x7fff_ffff }),
  offset: u64Arb,
});

export const commitIntentArb: fc.Arbitrary<CommitIntent> = fc
  .tuple(sendRequestArb, seqArb, idArb, u64Arb, sortedIdsArb(8), fc.option(publicationArb, { nil: null }))
  .map(([request, seq, messageId, createdAt, recipients, publication]) => ({
    key: commitKeyOf(request),
    identity: new Uint8Array(requestIdentity(request)),
    request,
    seq,
    messageId,
    createdAt,
    recipients,
    publication,
  }));

export const messageRecordArb: fc.Arbitrary<MessageRecord> = rec<MessageRecord>({
  tenantId: idArb,
  conversationId: idArb,
  seq: seqArb,
  messageId: idArb,
  senderId: idArb,
  clientMessageId: idArb,
  kind: fc.constantFrom(...MESSAGE_KINDS),
  control: fc.boolean(),
  contentType: contentTypeArb,
  body: bodyArb,
  createdAt: u64Arb,
  retention: retentionArb,
});

export const eventsArb: fc.Arbitrary<MailboxEvent[]> = fc
  .uniqueArray(rec<MailboxEvent>({ ordinal: u32Arb, eventId: idArb, payload: fc.uint8Array({ maxLength: 24 }) }), {
    selector: (e) => e.ordinal,
    minLength: 1,
    maxLength: 5,
  })
  .map(canonicalizeEvents);

export const mailboxEntryArb: fc.Arbitrary<MailboxEntry> = rec<MailboxEntry>({
  tenantId: idArb,
  userId: idArb,
  mailboxSeq: u64Arb,
  createdAt: u64Arb,
  expiresAt: u64Arb,
  events: eventsArb,
});

export const ledgerArb: fc.Arbitrary<LedgerItem[]> = fc
  .uniqueArray(rec<LedgerItem>({ day: u32Arb, maxSeq: u64Arb, expiresAt: u64Arb }), { selector: (i) => i.day, maxLength: 32 })
  .map((items) => [...items].sort((a, b) => a.day - b.day));

export const messageEventArb: fc.Arbitrary<MessageEvent> = rec<MessageEvent>({ record: messageRecordArb, recipients: sortedIdsArb(8) });

export const dispatchRecordArb: fc.Arbitrary<DispatchRecord> = rec<DispatchRecord>({
  dispatchId: idArb,
  tenantId: idArb,
  shard: fc.integer({ min: 0, max: 0xffff }),
  messageId: idArb,
  conversationId: idArb,
  seq: seqArb,
  createdAt: u64Arb,
  recipients: sortedIdsArb(8),
  events: eventsArb,
});
