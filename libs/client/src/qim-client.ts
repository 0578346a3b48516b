import { QimArgumentError } from './errors/qim-error';
import type { ActingIdentity } from './http/acting-headers';
import { DEFAULT_MAX_SOCKETS } from './http/exchange';
import { HttpTransport } from './http/http-transport';
import type { RetryPolicy } from './http/retry-policy';
import { DEFAULT_RETRY } from './http/retry-policy';
import { shardStatus } from './mailbox/shard-status';
import { syncPage, truncateMailbox } from './mailbox/sync-page';
import { syncPages } from './mailbox/sync-pages';
import { syncStream } from './mailbox/sync-stream';
import type { StreamOptions, SyncOptions, SyncPage, SyncPageOptions } from './model/mailbox-model';
import type { Readiness, ShardStatus } from './model/ops-model';
import type { ConversationSummary, HistoryOptions, HistoryPage, SendInput, SendManyItem, SendResult, SummaryRequest } from './model/writer-model';
import { readiness } from './ops/readiness';
import type { Id128 } from './wire/ids';
import { requireId128 } from './wire/ids';
import { historyPage, historyPages } from './writer/history';
import { changeMembers, listMembers } from './writer/members';
import { sendMany } from './writer/send-many';
import { sendMessage } from './writer/send-message';
import { conversationSummaries } from './writer/summaries';

/**
 * Default bound of one send attempt (ms): the writer's default send deadline (10 s) plus its default
 * admission wait (1 s), plus a margin for the network and the answer.
 */
export const DEFAULT_SEND_TIMEOUT_MS = 15_000;

export interface QimClientOptions {
  /** Base URL of the writer service, e.g. `http://127.0.0.1:18080`. */
  readonly writerUrl: string;
  /** Base URL of the mailbox service, e.g. `http://127.0.0.1:18081`. */
  readonly mailboxUrl: string;
  /** The services' bearer token (`QIM_SERVICE_TOKEN`). */
  readonly token: string;
  /** The acting tenant (required by every call except readiness and shard status). */
  readonly tenantId?: Id128;
  /** The acting user (required by send, history, summaries and the mailbox calls). */
  readonly userId?: Id128;
  /** Bound of one attempt (ms, default 10 000); a long poll adds its wait. */
  readonly timeoutMs?: number;
  /**
   * Bound of one attempt of a send (ms, default `DEFAULT_SEND_TIMEOUT_MS`, 15 000). It must exceed
   * what the writer may take before answering: its `QIM_SEND_DEADLINE_MS` (default 10 s) plus the
   * admission wait `QIM_ADMISSION_WAIT_MS` (default 1 s), so the client reads the writer's own 503
   * instead of giving up just before it.
   */
  readonly sendTimeoutMs?: number;
  /** Retries of transport failures, 503 and 429 (default 5 attempts, 100 ms doubling up to 2 s, or the server's `Retry-After` up to 10 s). */
  readonly retry?: Partial<RetryPolicy>;
  /**
   * A fetch to use instead of the default transport (`node:http`/`node:https` with a keep-alive
   * agent shared by the process): for tests or runtimes without `node:http`.
   */
  readonly fetch?: typeof fetch;
  /** Sockets per origin of the default transport (default 256; requests beyond wait for one). Ignored with `fetch`. */
  readonly maxSockets?: number;
}

function checkedUrl(what: string, url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new QimArgumentError(`${what} is not a URL: ${JSON.stringify(url)}`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new QimArgumentError(`${what} must be http(s), got ${u.protocol}`);
  return url;
}

/**
 * A typed client of the QIM writer and mailbox services over HTTP/JSON, acting as one tenant and
 * (optionally) one user. Every call fails with a `QimError`; retries of transport failures and
 * 503 are built in and safe (a send keeps its client message id).
 */
export class QimClient {
  readonly writer: HttpTransport;
  readonly mailbox: HttpTransport;
  private readonly who: ActingIdentity;
  private readonly sendTimeoutMs: number;
  private readonly retry: RetryPolicy;

  constructor(private readonly options: QimClientOptions) {
    if (typeof options.token !== 'string' || options.token.length === 0) throw new QimArgumentError('token is required');
    const timeoutMs = options.timeoutMs ?? 10_000;
    if (!Number.isInteger(timeoutMs) || timeoutMs < 1) throw new QimArgumentError(`timeoutMs must be a positive integer, got ${timeoutMs}`);
    const sendTimeoutMs = options.sendTimeoutMs ?? Math.max(DEFAULT_SEND_TIMEOUT_MS, timeoutMs);
    if (!Number.isInteger(sendTimeoutMs) || sendTimeoutMs < 1) throw new QimArgumentError(`sendTimeoutMs must be a positive integer, got ${sendTimeoutMs}`);
    this.sendTimeoutMs = sendTimeoutMs;
    const retry = { ...DEFAULT_RETRY, ...options.retry };
    this.retry = retry;
    if (!Number.isInteger(retry.attempts) || retry.attempts < 1) throw new QimArgumentError(`retry.attempts must be ≥ 1, got ${retry.attempts}`);
    const maxSockets = options.maxSockets ?? DEFAULT_MAX_SOCKETS;
    if (!Number.isInteger(maxSockets) || maxSockets < 1) throw new QimArgumentError(`maxSockets must be a positive integer, got ${maxSockets}`);
    const base = { token: options.token, timeoutMs, retry, fetch: options.fetch, maxSockets };
    this.writer = new HttpTransport({ ...base, baseUrl: checkedUrl('writerUrl', options.writerUrl) });
    this.mailbox = new HttpTransport({ ...base, baseUrl: checkedUrl('mailboxUrl', options.mailboxUrl) });
    this.who = {
      tenantId: options.tenantId === undefined ? null : requireId128('tenantId', options.tenantId),
      userId: options.userId === undefined ? null : requireId128('userId', options.userId),
    };
  }

  get tenantId(): Id128 | null {
    return this.who.tenantId;
  }

  get userId(): Id128 | null {
    return this.who.userId;
  }

  /** The same client acting as another user of the same tenant. */
  as(userId: Id128): QimClient {
    return new QimClient({ ...this.options, userId });
  }

  /** Sends a message as the acting user (see `sendMessage`: one client id, safe retries, typed 409/403). */
  send(input: SendInput, signal?: AbortSignal): Promise<SendResult> {
    return sendMessage(this.writer, this.who, input, signal, this.sendTimeoutMs);
  }

  /**
   * Sends several messages as the acting user in one request (`POST /v1/messages/batch`, at most the
   * writer's `QIM_SEND_BATCH_MAX`): each answered on its own in input order, with a send's idempotency
   * and typed errors (see `sendMany`); items answered 503 are sent again with the same ids.
   */
  sendMany(inputs: readonly SendInput[], signal?: AbortSignal): Promise<SendManyItem[]> {
    return sendMany(this.writer, this.who, inputs, this.retry, signal, this.sendTimeoutMs);
  }

  /** One page of a conversation's history. */
  historyPage(conversationId: Id128, opts?: HistoryOptions): Promise<HistoryPage> {
    return historyPage(this.writer, this.who, conversationId, opts);
  }

  /** A conversation's history as an async iterator over pages (`for await (const page of client.history(id))`). */
  history(conversationId: Id128, opts?: HistoryOptions): AsyncGenerator<HistoryPage, void, undefined> {
    return historyPages(this.writer, this.who, conversationId, opts);
  }

  /** Head seq, last message and unread count per conversation of the acting user. */
  summaries(items: readonly SummaryRequest[], signal?: AbortSignal): Promise<ConversationSummary[]> {
    return conversationSummaries(this.writer, this.who, items, signal);
  }

  /** Adds users to a conversation of the acting tenant; resolves to the member count. */
  addMembers(conversationId: Id128, users: readonly Id128[], signal?: AbortSignal): Promise<number> {
    return changeMembers(this.writer, this.who, 'add', conversationId, users, signal);
  }

  /** Removes users from a conversation of the acting tenant; resolves to the member count. */
  removeMembers(conversationId: Id128, users: readonly Id128[], signal?: AbortSignal): Promise<number> {
    return changeMembers(this.writer, this.who, 'remove', conversationId, users, signal);
  }

  /** The members of a conversation of the acting tenant. */
  members(conversationId: Id128, signal?: AbortSignal): Promise<Id128[]> {
    return listMembers(this.writer, this.who, conversationId, signal);
  }

  /** One page of the acting user's mailbox. */
  syncPage(opts?: SyncPageOptions): Promise<SyncPage> {
    return syncPage(this.mailbox, this.who, opts);
  }

  /** The acting user's mailbox as an async iterator over pages; long-polls in follow mode, resyncs on 410 via `onResync`. */
  sync(opts?: SyncOptions): AsyncGenerator<SyncPage, void, undefined> {
    return syncPages(this.mailbox, this.who, opts);
  }

  /**
   * The acting user's mailbox pushed by the service over one connection (server-sent events), page by
   * page as entries arrive, each page from the previous one's `nextAfter`: no request per page. Ends
   * when the service ends the stream (its life is the service's `QIM_SYNC_STREAM_MAX_MS`): call again
   * from the last `nextAfter`. 410 (`QimResyncRequiredError`) and other refusals are thrown.
   */
  stream(opts?: StreamOptions): AsyncGenerator<SyncPage, void, undefined> {
    return syncStream(this.mailbox, this.who, opts);
  }

  /** Makes the acting user's entries at or below `before` unreadable. */
  truncate(before: bigint, signal?: AbortSignal): Promise<void> {
    return truncateMailbox(this.mailbox, this.who, before, signal);
  }

  /** A mailbox shard's status (frontier, lag) for operators. */
  shardStatus(shard: number, signal?: AbortSignal): Promise<ShardStatus> {
    return shardStatus(this.mailbox, shard, signal);
  }

  /** `/readyz` of one service (not retried; 503 is an answer, not an error). */
  readiness(service: 'writer' | 'mailbox', signal?: AbortSignal): Promise<Readiness> {
    return readiness(service === 'writer' ? this.writer : this.mailbox, signal);
  }
}
