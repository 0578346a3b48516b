import {
  ConflictError,
  CorruptEntryError,
  CursorExpiredError,
  EpochMismatchError,
  FanoutLimitError,
  ForbiddenError,
  FrontierGapError,
  InvalidInputError,
  NotFoundError,
  UnavailableError,
} from '@qim/store-core';
import { z } from 'zod';
import { mapError } from './error-body';
import { UnauthorizedError } from './service-errors';

describe('mapError', () => {
  it.each([
    [new ConflictError('c'), 409, 'CONFLICT'],
    [new ForbiddenError('f'), 403, 'FORBIDDEN'],
    [new CursorExpiredError('x', 5n), 410, 'CURSOR_EXPIRED'],
    [new EpochMismatchError('e'), 410, 'EPOCH_MISMATCH'],
    [new InvalidInputError('i'), 400, 'INVALID_INPUT'],
    [new NotFoundError('n'), 404, 'NOT_FOUND'],
    [new UnavailableError('u'), 503, 'UNAVAILABLE'],
    [new FrontierGapError('g'), 503, 'FRONTIER_GAP'],
    [new CorruptEntryError('c'), 500, 'CORRUPT_ENTRY'],
    [new UnauthorizedError('a'), 401, 'UNAUTHORIZED'],
    [new FanoutLimitError('f'), 422, 'FANOUT_LIMIT'],
  ])('%s → %i %s', (err, status, code) => {
    const m = mapError(err);
    expect(m.status).toBe(status);
    expect(m.body.code).toBe(code);
    expect(m.body.message).toBe(status < 500 ? err.message : status === 503 ? 'temporarily unavailable; retry later' : 'internal error');
  });

  it('never puts driver text, CQL or host names in a 5xx body; it carries the request id instead', () => {
    const driver = new Error('connect ECONNREFUSED 10.1.2.3:6379');
    for (const err of [
      new UnavailableError(`redis at redis-0.internal:6379 is unreachable: ${driver.message}`, { cause: driver }),
      new CorruptEntryError('SELECT seq FROM qim.history_index WHERE tenant=… returned 2 rows'),
      driver,
    ]) {
      const m = mapError(err, 'req-7');
      expect(m.serverFault).toBe(true);
      expect(Object.keys(m.body).sort()).toEqual(['code', 'message', 'request_id']);
      expect(m.body.request_id).toBe('req-7');
      expect(JSON.stringify(m.body)).not.toMatch(/ECONNREFUSED|10\.1\.2\.3|redis-0|SELECT|qim\.history_index/);
    }
  });

  it('keeps a public message written for the client on a 5xx, and keeps 4xx bodies as they were', () => {
    const err = Object.assign(new UnavailableError('publish stuck on broker-3:9092'), { publicMessage: 'send deadline passed' });
    expect(mapError(err, 'req-1').body).toEqual({ code: 'UNAVAILABLE', message: 'send deadline passed', request_id: 'req-1' });
    expect(mapError(new ConflictError('other content'), 'req-2').body).toEqual({ code: 'CONFLICT', message: 'other content' });
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
