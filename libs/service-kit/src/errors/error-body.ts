import { StoreError } from '@qim/store-core';
import { ZodError } from 'zod';
import { RESYNC_CODES, statusOfCode } from './error-status';

/** The wire form of every error: a stable code and a human message (plus `resync` for cursor errors). */
export interface ErrorBody {
  readonly code: string;
  readonly message: string;
  readonly resync?: true;
}

export interface MappedError {
  readonly status: number;
  readonly body: ErrorBody;
  /** True when the failure is ours (5xx): logged at error level. */
  readonly serverFault: boolean;
}

interface FrameworkError {
  readonly code?: unknown;
  readonly statusCode?: unknown;
  readonly message?: unknown;
}

/** Fastify's own request errors (body limit, media type, malformed JSON) → stable codes. */
function frameworkCode(err: FrameworkError): string | null {
  if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return 'PAYLOAD_TOO_LARGE';
  if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return 'UNSUPPORTED_MEDIA_TYPE';
  const status = typeof err.statusCode === 'number' ? err.statusCode : 0;
  return status >= 400 && status < 500 ? 'INVALID_INPUT' : null;
}

function zodMessage(err: ZodError): string {
  return err.issues.map((i) => `${i.path.length > 0 ? i.path.join('.') : 'request'}: ${i.message}`).join('; ');
}

/**
 * Maps any thrown value to `{status, {code, message}}`. Store errors keep their code; zod and
 * framework request errors become INVALID_INPUT (or their specific code); anything else is
 * INTERNAL 500 with a generic message (details go to the log, not to the caller).
 */
export function mapError(err: unknown): MappedError {
  let code: string;
  let message: string;
  if (err instanceof StoreError) {
    code = err.code;
    message = err.message;
  } else if (err instanceof ZodError) {
    code = 'INVALID_INPUT';
    message = zodMessage(err);
  } else {
    const fw = typeof err === 'object' && err !== null ? frameworkCode(err as FrameworkError) : null;
    code = fw ?? 'INTERNAL';
    message = fw !== null ? String((err as FrameworkError).message) : 'internal error';
  }
  const status = statusOfCode(code);
  const body: ErrorBody = RESYNC_CODES.has(code) ? { code, message, resync: true } : { code, message };
  return { status, body, serverFault: status >= 500 };
}
