/** One answer the writer gave to a send (first answer, replay, or an answer of another writer instance). */
export interface SendAnswer {
  readonly seq: bigint;
  readonly messageId: string;
  readonly createdAt: bigint;
  readonly replay: boolean;
  /** Which writer instance answered. */
  readonly via: string;
}

/** What became of a send in the load phase. */
export type SendOutcome =
  /** At least one answer in the load phase. */
  | 'acked'
  /** Only typed errors (503, transport) in the load phase; resolved by repeating after quiescence. */
  | 'failed-clean'
  /** Refused as expected (403: the sender was not a member) — must have written nothing. */
  | 'refused'
  /** Answered although the sender was not a member. */
  | 'accepted-unexpectedly';

/** Everything the checker did and saw for one client message id. */
export interface SendRecord {
  readonly conversationId: string;
  readonly senderId: string;
  readonly clientMessageId: string;
  readonly body: string;
  /** True when the sender had been removed before this send (a 403 is expected). */
  readonly expectForbidden: boolean;
  outcome: SendOutcome;
  readonly answers: SendAnswer[];
  /** Error codes seen, in order (a retry round each). */
  readonly errors: string[];
  /** Answers given when the send was repeated after quiescence. */
  readonly resolution: SendAnswer[];
}

/** A same-id, other-body send after an ACK: the writer must refuse it with 409 and keep the first body. */
export interface ConflictProbe {
  readonly conversationId: string;
  readonly clientMessageId: string;
  readonly otherBody: string;
  /** Who sends it (the original sender); absent in hand-built observations. */
  readonly senderId?: string;
  /** The error code answered, or `ACCEPTED` when the writer took it. */
  code: string;
}

/** A message as read back (history or mailbox event). */
export interface SeenMessage {
  readonly conversationId: string;
  readonly seq: bigint;
  readonly messageId: string;
  readonly clientMessageId: string | null;
  readonly body: string;
  readonly createdAt: bigint;
}

/** One mailbox entry as read back: its mailbox seq and the messages of its events. */
export interface SeenEntry {
  readonly seq: bigint;
  readonly messages: readonly SeenMessage[];
}

/** A full read of one user's mailbox, or the 410 that made it impossible. */
export type MailboxRead = { readonly kind: 'entries'; readonly entries: readonly SeenEntry[] } | { readonly kind: 'expired'; readonly code: string };

/** One user's mailbox after quiescence, read twice (small pages; one large read). */
export interface MailboxObservation {
  readonly userId: string;
  /** Stable members were members of their conversations for the whole load: one entry per message each. */
  readonly stable: boolean;
  /** The conversations the user was ever a member of. */
  readonly conversations: ReadonlySet<string>;
  readonly paged: MailboxRead;
  readonly large: MailboxRead;
}

/** A device that followed a user's mailbox with long polls during the load. */
export interface DeviceObservation {
  readonly userId: string;
  readonly stable: boolean;
  /** Message keys (`conv/seq`) received, in order, across restarts from the saved cursor. */
  readonly received: readonly string[];
  /** Mailbox entry seqs received, in order. */
  readonly entrySeqs: readonly bigint[];
  /** 410 codes answered (the device then started over). */
  readonly resyncs: readonly string[];
}

/** Everything the invariants are checked on. */
export interface Observations {
  readonly sends: readonly SendRecord[];
  readonly probes: readonly ConflictProbe[];
  /** Each conversation's complete history (oldest first). */
  readonly history: ReadonlyMap<string, readonly SeenMessage[]>;
  readonly mailboxes: readonly MailboxObservation[];
  readonly devices: readonly DeviceObservation[];
}

/** One row of the invariant table. */
export interface InvariantRow {
  readonly name: string;
  /** How many things were checked. */
  readonly checked: number;
  /** How many of them broke the invariant. */
  readonly violations: number;
  /** The first few violations, readable. */
  readonly examples: readonly string[];
}

export const messageKey = (conversationId: string, seq: bigint): string => `${conversationId}/${seq}`;
