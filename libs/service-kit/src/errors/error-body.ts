import { StoreError } from '@qim/store-core';
import { ZodError } from 'zod';
import type { ErrorCode } from './error-status';
import { RESYNC_CODES, isErrorCode, statusOfCode } from './error-status';

/**
 * The wire form of every error: a stable code and a human message (plus `resync` for cursor
 * errors). A 5xx body carries `request_id` instead of any detail: the details are in the log line
 * with that id.
 */
export interface ErrorBody {
  readonly code: ErrorCode;
  readonly message: string;
  readonly resync?: true;
  readonly request_id?: string;
}

export interface MappedError {
  readonly status: number;
  readonly body: ErrorBody;
  /** True when the failure is ours (5xx): logged at error level with its full detail. */
  readonly serverFault: boolean;
}

/**
 * An error whose 5xx answer may say more than the generic text: `publicMessage` is written for
 * the client and carries no driver text, statement or host name.
 */
export interface PublicFailure {
  readonly publicMessage: string;
}

/** What a 5xx says when the error has no `publicMessage`: never the error's own message. */
const GENERIC_5XX: Readonly<Record<number, string>> = Object.freeze({ 503: 'temporarily unavailable; retry later' });
const GENERIC_500 = 'internal error';

interface FrameworkError {
  readonly code?: unknown;
  readonly statusCode?: unknown;
  readonly message?: unknown;
  /** Set on a route-schema validation failure: which part of the request and what was wrong. */
  readonly validation?: unknown;
  readonly validationContext?: unknown;
}

interface ValidationIssue {
  readonly instancePath?: unknown;
  readonly message?: unknown;
}

/** Fastify's own request errors (body limit, media type, malformed JSON) → stable codes. */
function frameworkCode(err: FrameworkError): ErrorCode | null {
  if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return 'PAYLOAD_TOO_LARGE';
  if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return 'UNSUPPORTED_MEDIA_TYPE';
  const status = typeof err.statusCode === 'number' ? err.statusCode : 0;
  return status >= 400 && status < 500 ? 'INVALID_INPUT' : null;
}

/**
 * A route-schema validation failure in the same words as a zod error: `part.path: message` per
 * issue (`body.client_message_id: must be 32 lowercase hex characters`).
 */
function validationMessage(err: FrameworkError): string | null {
  if (!Array.isArray(err.validation) || err.validation.length === 0) return null;
  const part = typeof err.validationContext === 'string' ? err.validationContext : 'request';
  return (err.validation as ValidationIssue[])
    .map((i) => {
      const path = typeof i.instancePath === 'string' ? i.instancePath.split('/').filter((s) => s.length > 0) : [];
      return `${[part, ...path].join('.')}: ${String(i.message)}`;
    })
    .join('; ');
}

function zodMessage(err: ZodError): string {
  return err.issues.map((i) => `${i.path.length > 0 ? i.path.join('.') : 'request'}: ${i.message}`).join('; ');
}

function publicMessageOf(err: unknown): string | null {
  const m = typeof err === 'object' && err !== null ? (err as Partial<PublicFailure>).publicMessage : undefined;
  return typeof m === 'string' ? m : null;
}

/**
 * Maps any thrown value to `{status, {code, message}}`. Store errors keep their code (a code
 * outside `ErrorCode` is INTERNAL); zod errors, route-schema validation failures and framework
 * request errors become INVALID_INPUT (or their specific code); anything else is INTERNAL 500.
 * A 4xx keeps its message (it describes the caller's request). A 5xx never carries
 * the error's message (driver text, CQL, host names): it says the error's `publicMessage` or a
 * generic text, plus `request_id` when given.
 */
export function mapError(err: unknown, requestId?: string): MappedError {
  let code: ErrorCode;
  let message: string;
  if (err instanceof StoreError && isErrorCode(err.code)) {
    code = err.code;
    message = err.message;
  } else if (err instanceof ZodError) {
    code = 'INVALID_INPUT';
    message = zodMessage(err);
  } else {
    const fw = typeof err === 'object' && err !== null ? frameworkCode(err as FrameworkError) : null;
    code = fw ?? 'INTERNAL';
    message = fw !== null ? (validationMessage(err as FrameworkError) ?? String((err as FrameworkError).message)) : GENERIC_500;
  }
  const status = statusOfCode(code);
  const serverFault = status >= 500;
  if (serverFault) {
    const body: ErrorBody = { code, message: publicMessageOf(err) ?? GENERIC_5XX[status] ?? GENERIC_500 };
    return { status, body: requestId === undefined ? body : { ...body, request_id: requestId }, serverFault };
  }
  const body: ErrorBody = RESYNC_CODES.has(code) ? { code, message, resync: true } : { code, message };
  return { status, body, serverFault };
}
