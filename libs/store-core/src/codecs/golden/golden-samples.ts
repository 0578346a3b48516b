import type { Id128 } from '../../model/ids';
import type { DispatchRecord, MailboxEntry } from '../../model/mailbox';
import type { CommitIntent, MessageRecord, SendRequest } from '../../model/message';
import type { LedgerItem } from '../active-ledger';
import type { MessageEvent } from '../message-event';

/**
 * Fixed sample values behind the golden hex vectors in `golden/<codec>.json`. Changing a sample or
 * a vector is a format change: never edit one without the other and a codec version decision.
 * Ids are repeated nibbles so the hex is easy to read by eye.
 */
const id = (nibble: string): Id128 => nibble.repeat(32) as Id128;
const utf8 = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'utf8'));
const hex = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'hex'));

export const TENANT = id('1');
export const SENDER = id('2');
export const CLIENT_MSG = id('3');
export const CONVERSATION = id('4');
export const MESSAGE = id('5');
export const USER_A = id('6');
export const USER_B = id('7');
export const DISPATCH = id('8');
export const EVENT_A = id('9');
export const EVENT_B = id('a');

export const sendRequestSamples: Record<string, SendRequest> = {
  'normal-default': {
    tenantId: TENANT,
    senderId: SENDER,
    clientMessageId: CLIENT_MSG,
    conversationId: CONVERSATION,
    kind: 'normal',
    control: false,
    contentType: 'text/plain',
    body: utf8('hi'),
    retention: { kind: 'default' },
  },
  'edited-control-ephemeral': {
    tenantId: TENANT,
    senderId: SENDER,
    clientMessageId: CLIENT_MSG,
    conversationId: CONVERSATION,
    kind: 'edited',
    control: true,
    contentType: 'é',
    body: hex('00ff'),
    retention: { kind: 'ephemeral', ttlSeconds: 3600 },
  },
};

/** SHA-256 of the request encodings (hex), pinned here as well: the stable identities. */
export const NORMAL_DEFAULT_IDENTITY_HEX = 'b4e866890b61955d2e1f68d5789ea03542af71a52b46e194fff6a39eaea14fe3';
export const EDITED_IDENTITY_HEX = '5023422308656c2c80b605e0bc4ec1f72e0ffb78566e02ef5463b50ae23ee649';

const normal = sendRequestSamples['normal-default']!;
const edited = sendRequestSamples['edited-control-ephemeral']!;
const key = { tenantId: TENANT, senderId: SENDER, clientMessageId: CLIENT_MSG };

export const commitIntentSamples: Record<string, CommitIntent> = {
  reserved: {
    key,
    identity: hex(NORMAL_DEFAULT_IDENTITY_HEX),
    request: normal,
    seq: 1n,
    messageId: MESSAGE,
    createdAt: 1_700_000_000_000n,
    recipients: [SENDER, USER_A],
    publication: null,
  },
  published: {
    key,
    identity: hex(EDITED_IDENTITY_HEX),
    request: edited,
    seq: 258n,
    messageId: MESSAGE,
    createdAt: 1_700_000_000_000n,
    recipients: [],
    publication: { topic: 'qim.messages', partition: 3, offset: 9_007_199_254_740_993n },
  },
};

export const messageRecordSamples: Record<string, MessageRecord> = {
  'normal-default': {
    tenantId: TENANT,
    conversationId: CONVERSATION,
    seq: 1n,
    messageId: MESSAGE,
    senderId: SENDER,
    clientMessageId: CLIENT_MSG,
    kind: 'normal',
    control: false,
    contentType: 'text/plain',
    body: utf8('hi'),
    createdAt: 1_700_000_000_000n,
    retention: { kind: 'default' },
  },
  'system-compliance-max-seq': {
    tenantId: TENANT,
    conversationId: CONVERSATION,
    seq: (1n << 63n) - 1n,
    messageId: MESSAGE,
    senderId: SENDER,
    clientMessageId: CLIENT_MSG,
    kind: 'system',
    control: true,
    contentType: '',
    body: new Uint8Array(0),
    createdAt: 0n,
    retention: { kind: 'compliance_hold' },
  },
};

export const mailboxEntrySamples: Record<string, MailboxEntry> = {
  'two-events': {
    tenantId: TENANT,
    userId: USER_A,
    mailboxSeq: (7n << 47n) | 5n,
    createdAt: 1_700_000_000_000n,
    expiresAt: 1_702_598_400_000n,
    events: [
      { ordinal: 0, eventId: EVENT_A, payload: hex('0102') },
      { ordinal: 2, eventId: EVENT_B, payload: new Uint8Array(0) },
    ],
  },
};

export const activeLedgerSamples: Record<string, LedgerItem[]> = {
  empty: [],
  'two-days': [
    { day: 19_675, maxSeq: (1n << 47n) | 9n, expiresAt: 1_702_598_400_000n },
    { day: 19_676, maxSeq: (1n << 47n) | 12n, expiresAt: 1_702_684_800_000n },
  ],
};

export const messageEventSamples: Record<string, MessageEvent> = {
  'normal-default': { record: messageRecordSamples['normal-default']!, recipients: [SENDER, USER_A] },
};

export const dispatchRecordSamples: Record<string, DispatchRecord> = {
  'one-event': {
    dispatchId: DISPATCH,
    tenantId: TENANT,
    shard: 3,
    messageId: MESSAGE,
    conversationId: CONVERSATION,
    seq: 1n,
    createdAt: 1_700_000_000_000n,
    recipients: [SENDER, USER_A],
    events: [{ ordinal: 0, eventId: EVENT_A, payload: hex('c0ffee') }],
  },
};
