/**
 * Domain errors: one tagged class per situation, each with a literal `code`. No HTTP status here;
 * each app maps `code` → status in one error handler. Every backend raises the same error for the
 * same situation (the contract suite checks the class and the code).
 */
export abstract class StoreError extends Error {
  abstract readonly code: string;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Same commit key (or dispatch) with different content. */
export class ConflictError extends StoreError {
  readonly code = 'CONFLICT' as const;
}
/** The history authorizer refused the viewer; nothing was read. */
export class ForbiddenError extends StoreError {
  readonly code = 'FORBIDDEN' as const;
}
/** The cursor points below trim or into an expired retention gap: the device must resync. */
export class CursorExpiredError extends StoreError {
  readonly code = 'CURSOR_EXPIRED' as const;
  constructor(
    message: string,
    readonly boundary: bigint,
  ) {
    super(message);
  }
}
/** Stored data is missing, undecodable or inconsistent. Fails closed; never skipped. */
export class CorruptEntryError extends StoreError {
  readonly code = 'CORRUPT_ENTRY' as const;
}
/** A mailbox seq belongs to another epoch than the store's `ShardEpoch`. */
export class EpochMismatchError extends StoreError {
  readonly code = 'EPOCH_MISMATCH' as const;
}
/** A state transition was asked from a state that does not allow it (commit FSM). */
export class InvalidStateError extends StoreError {
  readonly code = 'INVALID_STATE' as const;
}
/** The thing an operation needs does not exist (commit). */
export class NotFoundError extends StoreError {
  readonly code = 'NOT_FOUND' as const;
}
/**
 * A dispatch page starts above `frontier + 1`: applying it would skip source offsets (a hole). Nothing
 * is written; the shard stalls visibly until the missing records are applied.
 */
export class FrontierGapError extends StoreError {
  readonly code = 'FRONTIER_GAP' as const;
}
/** A rule the code itself must keep was broken (u64 bit 63, impossible state). Nothing is written. */
export class InvariantViolationError extends StoreError {
  readonly code = 'INVARIANT_VIOLATION' as const;
}
/** A conversation would exceed its member cap (`QIM_MAX_FANOUT`); nothing was added. */
export class FanoutLimitError extends StoreError {
  readonly code = 'FANOUT_LIMIT' as const;
}
/** Caller input is malformed (id format, sizes, budgets). Nothing is written. */
export class InvalidInputError extends StoreError {
  readonly code = 'INVALID_INPUT' as const;
}
/** The backend cannot answer now (server down, quorum unavailable, timeout). Safe to retry. */
export class UnavailableError extends StoreError {
  readonly code = 'UNAVAILABLE' as const;
}

/** Why a codec refused bytes. */
export type CodecFailure = 'BAD_MAGIC' | 'UNKNOWN_VERSION' | 'TRUNCATED' | 'TRAILING_BYTES' | 'OUT_OF_RANGE' | 'NOT_CANONICAL';

/** A codec refused to decode (or encode) a value. Backends wrap it in `CorruptEntryError` when it comes from storage. */
export class CodecError extends StoreError {
  readonly code = 'CODEC_ERROR' as const;
  constructor(
    readonly codec: string,
    readonly failure: CodecFailure,
    detail: string,
  ) {
    super(`${codec}: ${failure}: ${detail}`);
  }
}

export type StoreErrorCode = StoreError['code'];
