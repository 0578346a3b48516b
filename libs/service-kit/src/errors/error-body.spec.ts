import { ConflictError, CorruptEntryError, CursorExpiredError, EpochMismatchError, ForbiddenError, InvalidInputError, NotFoundError, UnavailableError } from '@qim/store-core';
import { z } from 'zod';
import { mapError } from './error-body';
import { FanoutLimitError, UnauthorizedError } from './service-errors';

describe('mapError', () => {
  it.each([
    [new ConflictError('c'), 409, 'CONFLICT'],
    [new ForbiddenError('f'), 403, 'FORBIDDEN'],
    [new CursorExpiredError('x', 5n), 410, 'CURSOR_EXPIRED'],
    [new EpochMismatchError('e'), 410, 'EPOCH_MISMATCH'],
    [new InvalidInputError('i'), 400, 'INVALID_INPUT'],
    [new NotFoundError('n'), 404, 'NOT_FOUND'],
    [new UnavailableError('u'), 503, 'UNAVAILABLE'],
    [new CorruptEntryError('c'), 500, 'CORRUPT_ENTRY'],
    [new UnauthorizedError('a'), 401, 'UNAUTHORIZED'],
    [new FanoutLimitError('f'), 422, 'FANOUT_LIMIT'],
  ])('%s → %i %s', (err, status, code) => {
    const m = mapError(err);
    expect(m.status).toBe(status);
    expect(m.body.code).toBe(code);
    expect(m.body.message).toBe(err.message);
  });

  it('marks resync codes', () => {
    expect(mapError(new CursorExpiredError('gone', 1n)).body).toEqual({ code: 'CURSOR_EXPIRED', message: 'gone', resync: true });
  });

  it('maps zod errors to INVALID_INPUT naming the path', () => {
    const r = z.object({ a: z.number() }).safeParse({ a: 'x' });
    const m = mapError(r.error);
    expect(m).toMatchObject({ status: 400, body: { code: 'INVALID_INPUT' } });
    expect(m.body.message).toContain('a:');
  });

  it('maps framework body-limit and media-type errors', () => {
    expect(mapError({ code: 'FST_ERR_CTP_BODY_TOO_LARGE', statusCode: 413, message: 'too large' }).status).toBe(413);
    expect(mapError({ code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE', statusCode: 415, message: 'media' }).status).toBe(415);
    expect(mapError({ code: 'FST_ERR_CTP_INVALID_JSON_BODY', statusCode: 400, message: 'bad json' }).body.code).toBe('INVALID_INPUT');
  });

  it('never guesses an unknown failure into success or a client error', () => {
    const m = mapError(new Error('socket hang up'));
    expect(m).toEqual({ status: 500, body: { code: 'INTERNAL', message: 'internal error' }, serverFault: true });
  });
});
