export { DEFAULT_SEND_TIMEOUT_MS, QimClient } from './qim-client';
export type { QimClientOptions } from './qim-client';

export {
  QimApiError,
  QimAbortedError,
  QimArgumentError,
  QimConflictError,
  QimError,
  QimForbiddenError,
  QimInvalidInputError,
  QimNotFoundError,
  QimProtocolError,
  QimResyncRequiredError,
  QimTransportError,
  QimUnauthorizedError,
  QimUnavailableError,
} from './errors/qim-error';
export type { CallSite } from './errors/qim-error';

export { DEFAULT_RETRY, NO_RETRY } from './http/retry-policy';
export type { RetryPolicy } from './http/retry-policy';
export { DEFAULT_POLL_INTERVAL_MS, DEFAULT_WAIT_MS } from './mailbox/sync-pages';

export { isId128, newId128 } from './wire/ids';
export type { Id128 } from './wire/ids';

export type { Message, MessageKind, Retention } from './model/message';
export type {
  ConversationSummary,
  HistoryDirection,
  HistoryOptions,
  HistoryPage,
  SendInput,
  SendManyItem,
  SendResult,
  SummaryRequest,
} from './model/writer-model';
export type { MailboxEntry, MailboxEvent, ResyncEvent, StreamOptions, SyncOptions, SyncPage, SyncPageOptions } from './model/mailbox-model';
export type { Readiness, ShardStatus } from './model/ops-model';
