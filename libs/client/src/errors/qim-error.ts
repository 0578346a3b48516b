/** Where a failed call went: enough to find it in the service's log. */
export interface CallSite {
  readonly method: string;
  /** Path and query of the request, without the base URL. */
  readonly path: string;
  /** The `x-request-id` the client sent (or the one the service answered with). */
  readonly requestId: string;
}

/**
 * Every error the client throws. `code` is the service's stable error code for answers
 * (`CONFLICT`, `FORBIDDEN`, `CURSOR_EXPIRED`, …) or one of the client's own: `TRANSPORT`,
 * `TIMEOUT`, `BAD_RESPONSE`, `INVALID_ARGUMENT`, `ABORTED`.
 */
export abstract class QimError extends Error {
  abstract readonly code: string;
  /** HTTP status of the answer; null when there was none (transport failure, bad argument). */
  readonly status: number | null;
  /** The request that failed; null when nothing was sent. */
  readonly call: CallSite | null;
  /** For a send: the client message id, so the caller can retry later with the same id. */
  clientMessageId: string | null = null;
  /** The server's `Retry-After` of the last answer (ms), when it asked to be called again later. */
  retryAfterMs: number | null = null;

  constructor(message: string, status: number | null, call: CallSite | null, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.status = status;
    this.call = call;
  }

  /** The request id of the failed call, or null when nothing was sent. */
  get requestId(): string | null {
    return this.call?.requestId ?? null;
  }
}

/**
 * A copy of `err` (same class, fields, message, stack and cause) carrying `clientMessageId`: one
 * failure of a whole batch request, given to each of its sends.
 */
export function withClientMessageId<E extends QimError>(err: E, clientMessageId: string): E {
  const copy = Object.create(Object.getPrototypeOf(err) as object, Object.getOwnPropertyDescriptors(err)) as E;
  copy.clientMessageId = clientMessageId;
  return copy;
}

/** A caller's argument was refused before anything was sent (a malformed id, an empty list). */
export class QimArgumentError extends QimError {
  readonly code = 'INVALID_ARGUMENT' as const;
  constructor(message: string) {
    super(message, null, null);
  }
}

/** No HTTP answer after every allowed attempt (connection refused or reset, DNS, timeout). */
export class QimTransportError extends QimError {
  readonly code: 'TRANSPORT' | 'TIMEOUT';
  /** How many attempts were made. */
  readonly attempts: number;
  constructor(message: string, timedOut: boolean, attempts: number, call: CallSite, cause: unknown) {
    super(message, null, call, { cause });
    this.code = timedOut ? 'TIMEOUT' : 'TRANSPORT';
    this.attempts = attempts;
  }
}

/**
 * The caller's `AbortSignal` ended the call (`cause`: the signal's reason). Whether a request that
 * was sent took effect is unknown: a send may have committed, so repeat it with the same
 * `clientMessageId` (carried here) — never with a new one.
 */
export class QimAbortedError extends QimError {
  readonly code = 'ABORTED' as const;
  constructor(message: string, call: CallSite | null, reason: unknown) {
    super(message, null, call, { cause: reason });
  }
}

/** The service answered something the client cannot read (not JSON, a missing or mistyped field). */
export class QimProtocolError extends QimError {
  readonly code = 'BAD_RESPONSE' as const;
  constructor(message: string, status: number | null, call: CallSite | null) {
    super(message, status, call);
  }
}

/** The service answered an error status with `{code, message}` (or a body the client could not read). */
export class QimApiError extends QimError {
  readonly code: string;
  /** The parsed error body as the service sent it (null when it was not JSON). */
  readonly body: unknown;
  constructor(code: string, message: string, status: number, call: CallSite, body: unknown) {
    super(message, status, call);
    this.code = code;
    this.body = body;
  }
}

/** 400: the service refused the request as malformed (`INVALID_INPUT`). */
export class QimInvalidInputError extends QimApiError {}
/** 401: no or a wrong service token (`UNAUTHORIZED`). */
export class QimUnauthorizedError extends QimApiError {}
/** 403: the acting user may not do this, e.g. send to or read a conversation they are not a member of (`FORBIDDEN`). */
export class QimForbiddenError extends QimApiError {}
/** 404: no such route or object (`NOT_FOUND`). */
export class QimNotFoundError extends QimApiError {}
/** 409: e.g. a client message id reused with other content (`CONFLICT`). Retrying cannot help. */
export class QimConflictError extends QimApiError {}
/**
 * 410: the sync cursor can no longer be served (`CURSOR_EXPIRED` after a truncate or expiry,
 * `EPOCH_MISMATCH` after a mailbox epoch change). The device must drop its local state and resync.
 */
export class QimResyncRequiredError extends QimApiError {}
/** 503 after every allowed attempt (`UNAVAILABLE`, a writer without its lease, a service shutting down). */
export class QimUnavailableError extends QimApiError {}
