import type { CallSite } from './qim-error';
import {
  QimApiError,
  QimConflictError,
  QimForbiddenError,
  QimInvalidInputError,
  QimNotFoundError,
  QimResyncRequiredError,
  QimUnauthorizedError,
  QimUnavailableError,
} from './qim-error';

type ApiErrorClass = new (code: string, message: string, status: number, call: CallSite, body: unknown) => QimApiError;

const BY_STATUS: ReadonlyMap<number, ApiErrorClass> = new Map<number, ApiErrorClass>([
  [400, QimInvalidInputError],
  [401, QimUnauthorizedError],
  [403, QimForbiddenError],
  [404, QimNotFoundError],
  [409, QimConflictError],
  [410, QimResyncRequiredError],
  [503, QimUnavailableError],
]);

const CODE = /^[A-Z][A-Z0-9_]*$/;

function field(body: unknown, name: string): unknown {
  return typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;
}

/**
 * The typed error for an error answer. The service's `{code, message}` is kept as is; a body
 * without a stable code (a proxy's page, Fastify's own 503 while closing) gets `HTTP_<status>`.
 */
export function errorOfAnswer(status: number, body: unknown, call: CallSite): QimApiError {
  const rawCode = field(body, 'code');
  const rawMessage = field(body, 'message');
  const code = typeof rawCode === 'string' && CODE.test(rawCode) ? rawCode : `HTTP_${status}`;
  const message = typeof rawMessage === 'string' && rawMessage.length > 0 ? rawMessage : `${call.method} ${call.path} answered ${status}`;
  const Class = BY_STATUS.get(status) ?? QimApiError;
  return new Class(code, message, status, call, body);
}
