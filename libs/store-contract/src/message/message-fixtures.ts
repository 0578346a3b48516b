import { recordFromIntent } from '@qim/store-core';
import type {
  CommitSnapshot,
  HistoryAuthorizer,
  Id128,
  MessageCommitSteps,
  MessageStore,
  Publication,
  ReserveInput,
  SendRequest,
  Viewer,
} from '@qim/store-core';
import type { MessageHarnessFactory, MessageStoreHarness } from '../harness';
import { randomId } from '../support/ids';
import { TimeControl } from '../support/time-control';

/** A per-case harness, opened before and closed after every case. */
export interface MessageContext {
  readonly harness: MessageStoreHarness;
  readonly store: MessageStore;
  readonly time: TimeControl;
  /** A fresh tenant for the case. */
  readonly tenantId: Id128;
}

/** Opening and closing a harness talks to a real server; on a loaded 2-core machine that can exceed Jest's 5 s hook default. */
const HOOK_TIMEOUT_MS = 60_000;

/** Registers `beforeEach`/`afterEach` that open and close a harness; returns the current context. */
export function useMessageContext(factory: MessageHarnessFactory): () => MessageContext {
  let current: MessageContext | null = null;
  beforeEach(async () => {
    const harness = await factory();
    current = { harness, store: harness.store, time: new TimeControl(harness.clock), tenantId: randomId() };
  }, HOOK_TIMEOUT_MS);
  afterEach(async () => {
    const c = current;
    current = null;
    if (c !== null) await c.harness.close();
  }, HOOK_TIMEOUT_MS);
  return () => {
    if (current === null) throw new Error('message contract context used outside a case');
    return current;
  };
}

/** A valid request: a fresh sender and client message id, `normal`, default retention, unless overridden. */
export function makeRequest(tenantId: Id128, conversationId: Id128, over: Partial<SendRequest> = {}): SendRequest {
  return {
    tenantId,
    senderId: randomId(),
    clientMessageId: randomId(),
    conversationId,
    kind: 'normal',
    control: false,
    contentType: 'text/plain; charset=utf-8',
    body: Buffer.from(`hello ${randomId()}`, 'utf8'),
    retention: { kind: 'default' },
    ...over,
  };
}

/** A reserve input with a fresh candidate message id. */
export function makeReserve(request: SendRequest, createdAt: bigint, recipients: readonly Id128[] = [request.senderId]): ReserveInput {
  return { request, messageId: randomId(), createdAt, recipients };
}

/** reserve → putRecord: the message is RECORDED and visible in history. */
export async function recordMessage(store: MessageCommitSteps, input: ReserveInput): Promise<CommitSnapshot> {
  const { snapshot } = await store.reserve(input);
  return store.putRecord(snapshot.intent, recordFromIntent(snapshot.intent));
}

/** A publication coordinate for `markOutboxPublished`. */
export function publicationAt(offset: bigint): Publication {
  return { topic: 'qim.messages', partition: 3, offset };
}

/** Drives a reserved commit through RECORDED, OUTBOXED and COMMITTED. */
export async function commitFully(store: MessageCommitSteps, input: ReserveInput, offset = 7n): Promise<CommitSnapshot> {
  const recorded = await recordMessage(store, input);
  await store.markOutboxPublished(recorded.intent.key, recorded.intent.messageId, publicationAt(offset));
  return store.markCommitted(recorded.intent.key);
}

/** An authorizer that answers `allow` and records the store read count at the moment it was asked. */
export class RecordingAuthorizer implements HistoryAuthorizer {
  readonly calls: { viewer: Viewer; conversationId: Id128; readsAtCall: number }[] = [];
  constructor(
    private readonly allow: boolean,
    private readonly readCount: () => number,
  ) {}
  async canReadHistory(viewer: Viewer, conversationId: Id128): Promise<boolean> {
    this.calls.push({ viewer, conversationId, readsAtCall: this.readCount() });
    return this.allow;
  }
}

/** An authorizer that always allows. */
export const allowAll: HistoryAuthorizer = { canReadHistory: async () => true };
