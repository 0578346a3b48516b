import { errors, types } from 'cassandra-driver';
import { InvariantViolationError, UnavailableError } from '@qim/store-core';
import { applied, executionProfiles, fromCqlBigint, mapDriverError, named, toCqlBigint } from './statements';

describe('execution profiles', () => {
  it('read/write run at LOCAL_QUORUM, lwt adds LOCAL_SERIAL; the fallback profile is LOCAL_QUORUM too', () => {
    const byName = Object.fromEntries(executionProfiles().map((p) => [p.name, p]));
    const { localQuorum, localSerial } = types.consistencies;
    expect(byName['read']).toMatchObject({ consistency: localQuorum });
    expect(byName['read']!.serialConsistency).toBeUndefined();
    expect(byName['write']).toMatchObject({ consistency: localQuorum });
    expect(byName['write']!.serialConsistency).toBeUndefined();
    expect(byName['lwt']).toMatchObject({ consistency: localQuorum, serialConsistency: localSerial });
    expect(byName['default']).toMatchObject({ consistency: localQuorum, serialConsistency: localSerial });
  });
});

describe('named()', () => {
  it('pairs conditional CQL with the lwt profile and nothing else', () => {
    expect(named('t.x', 'INSERT INTO {ks}.t (k) VALUES (?) IF NOT EXISTS', { profile: 'lwt', idempotent: false }).profile).toBe('lwt');
    expect(named('t.x', 'UPDATE {ks}.t SET v = ? WHERE k = ? IF v = ?', { profile: 'lwt', idempotent: false }).profile).toBe('lwt');
    expect(() => named('t.x', 'UPDATE {ks}.t SET v = ? WHERE k = ? IF v = ?', { profile: 'write', idempotent: false })).toThrow(InvariantViolationError);
    expect(() => named('t.x', 'SELECT v FROM {ks}.t WHERE k = ?', { profile: 'lwt', idempotent: true })).toThrow(InvariantViolationError);
    expect(Object.isFrozen(named('t.x', 'SELECT v FROM {ks}.t WHERE k = ?', { profile: 'read', idempotent: true }))).toBe(true);
  });
});

describe('applied()', () => {
  const rs = (rows: Record<string, unknown>[]) => ({ rows }) as unknown as types.ResultSet;
  it('reads [applied]', () => {
    expect(applied(rs([{ '[applied]': true }]))).toBe(true);
    expect(applied(rs([{ '[applied]': false, next: 3n }]))).toBe(false);
  });
  it('a result without [applied] is an invariant violation', () => {
    expect(() => applied(rs([]))).toThrow(InvariantViolationError);
    expect(() => applied(rs([{ next: 1n }]))).toThrow(InvariantViolationError);
  });
});

describe('u64 ↔ CQL bigint', () => {
  it('passes u64 values with bit 63 clear through unchanged', () => {
    expect(toCqlBigint(0n, 'x')).toBe(0n);
    expect(toCqlBigint((1n << 63n) - 1n, 'x')).toBe((1n << 63n) - 1n);
    expect(fromCqlBigint(42n, 'x')).toBe(42n);
    expect(fromCqlBigint(7, 'x')).toBe(7n);
  });
  it('bit 63 (or a negative) → InvariantViolation, before anything is written', () => {
    expect(() => toCqlBigint(1n << 63n, 'seq')).toThrow(InvariantViolationError);
    expect(() => toCqlBigint(-1n, 'seq')).toThrow(InvariantViolationError);
    expect(() => fromCqlBigint(-5n, 'seq')).toThrow(InvariantViolationError);
    expect(() => fromCqlBigint(null, 'seq')).toThrow(InvariantViolationError);
    expect(() => fromCqlBigint('5', 'seq')).toThrow(InvariantViolationError);
  });
});

describe('mapDriverError', () => {
  it('transient cluster errors → UnavailableError (with cause)', () => {
    for (const err of [
      new errors.NoHostAvailableError({}),
      new errors.OperationTimedOutError('slow'),
      new errors.ResponseError(types.responseErrorCodes.unavailableException, 'not enough replicas'),
      new errors.ResponseError(types.responseErrorCodes.writeTimeout, 'CAS timeout'),
      new errors.ResponseError(types.responseErrorCodes.readTimeout, 'timeout'),
    ]) {
      const mapped = mapDriverError(err, 'SELECT x');
      expect(mapped).toBeInstanceOf(UnavailableError);
      expect(mapped.cause).toBe(err);
    }
  });
  it('a connection lost mid-request (a node killed: "Socket was closed") → UnavailableError, the outcome being unknown', () => {
    const closed = Object.assign(new Error('Socket was closed'), { isSocketError: true });
    expect(mapDriverError(closed, 'INSERT x')).toBeInstanceOf(UnavailableError);
  });
  it('anything else (syntax, invalid, unknown) → InvariantViolationError', () => {
    expect(mapDriverError(new errors.ResponseError(types.responseErrorCodes.invalid, 'unconfigured table'), 'SELECT x')).toBeInstanceOf(
      InvariantViolationError,
    );
    expect(mapDriverError(new Error('boom'), 'SELECT x')).toBeInstanceOf(InvariantViolationError);
  });
});
