import { errorOfAnswer } from './error-of-answer';
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

const call = { method: 'POST', path: '/v1/messages', requestId: 'req-1' };

describe('errorOfAnswer', () => {
  it.each([
    [400, 'INVALID_INPUT', QimInvalidInputError],
    [401, 'UNAUTHORIZED', QimUnauthorizedError],
    [403, 'FORBIDDEN', QimForbiddenError],
    [404, 'NOT_FOUND', QimNotFoundError],
    [409, 'CONFLICT', QimConflictError],
    [410, 'CURSOR_EXPIRED', QimResyncRequiredError],
    [410, 'EPOCH_MISMATCH', QimResyncRequiredError],
    [503, 'UNAVAILABLE', QimUnavailableError],
  ])('%i %s → %p with the service code, message, status and request id', (status, code, Class) => {
    const e = errorOfAnswer(status, { code, message: 'why' }, call);
    expect(e).toBeInstanceOf(Class);
    expect(e).toBeInstanceOf(QimApiError);
    expect([e.code, e.message, e.status, e.requestId, e.name]).toEqual([code, 'why', status, 'req-1', Class.name]);
  });

  it('keeps a code the client does not model (422 FANOUT_LIMIT) on the generic class', () => {
    const e = errorOfAnswer(422, { code: 'FANOUT_LIMIT', message: 'too many' }, call);
    expect(e.constructor).toBe(QimApiError);
    expect(e.code).toBe('FANOUT_LIMIT');
  });

  it('names a body without a stable code HTTP_<status> and says where it came from', () => {
    const e = errorOfAnswer(503, { statusCode: 503, error: 'Service Unavailable' }, call);
    expect(e).toBeInstanceOf(QimUnavailableError);
    expect(e.code).toBe('HTTP_503');
    expect(e.message).toBe('POST /v1/messages answered 503');
    expect(errorOfAnswer(500, null, call).code).toBe('HTTP_500');
    expect(errorOfAnswer(400, { code: 'not a code', message: 'x' }, call).code).toBe('HTTP_400');
  });
});
