import { ConfigError } from '@qim/service-kit';
import { parseServiceEnv } from '@qim/backends';
import { WRITER_VARIABLES, commonEnvShape } from '@qim/service-kit';
import { writerEnvSchema, writerEnvShape } from './writer-config';

const base = {
  QIM_SERVICE_TOKEN: 'a-long-enough-service-token',
  QIM_KAFKA_BROKERS: '127.0.0.1:19092',
  QIM_REDIS_URL: 'redis://127.0.0.1:16379',
};

function refusal(env: Record<string, string>): ConfigError {
  try {
    parseServiceEnv(writerEnvSchema, env);
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('writer time bounds', () => {
  it('defaults: send deadline 10 s, recovery grace above it, one shutdown deadline, request timeout, housekeeping on', () => {
    const c = parseServiceEnv(writerEnvSchema, base);
    expect(c.sendDeadlineMs).toBe(10_000);
    expect(c.recovery).toEqual({ intervalMs: 3_000, graceMs: 20_000, batch: 200, claimMs: 10_000 });
    expect(c.shutdownDeadlineMs).toBe(25_000);
    expect(c.http.requestTimeoutMs).toBe(30_000);
    expect(c.lease).toEqual({ ttlMs: 15_000, slots: 1_024, reacquireMs: 30_000 });
    expect(c.housekeeping).toEqual({ intervalMs: 10_000, batch: 1_000 });
  });

  it('reads every bound and switches housekeeping off with interval 0', () => {
    const c = parseServiceEnv(writerEnvSchema, {
      ...base,
      QIM_SEND_DEADLINE_MS: '2000',
      QIM_RECOVERY_GRACE_MS: '2001',
      QIM_SHUTDOWN_DEADLINE_MS: '5000',
      QIM_HTTP_REQUEST_TIMEOUT_MS: '4000',
      QIM_LEASE_REACQUIRE_MS: '0',
      QIM_HOUSEKEEPING_INTERVAL_MS: '0',
    });
    expect([c.sendDeadlineMs, c.recovery.graceMs, c.recovery.claimMs, c.shutdownDeadlineMs, c.http.requestTimeoutMs, c.lease.reacquireMs]).toEqual([
      2_000, 2_001, 2_000, 5_000, 4_000, 0,
    ]);
    expect(c.housekeeping).toBeNull();
    expect(parseServiceEnv(writerEnvSchema, { ...base, QIM_HOUSEKEEPING_INTERVAL_MS: '500', QIM_HOUSEKEEPING_BATCH: '7' }).housekeeping).toEqual({
      intervalMs: 500,
      batch: 7,
    });
  });

  it('refuses a recovery grace not longer than the send deadline, naming both variables', () => {
    for (const grace of ['10000', '5000']) {
      const e = refusal({ ...base, QIM_RECOVERY_GRACE_MS: grace });
      expect(e.issues.map((i) => i.variable)).toEqual(['QIM_RECOVERY_GRACE_MS']);
      expect(e.message).toContain('QIM_SEND_DEADLINE_MS');
    }
    expect(refusal({ ...base, QIM_SEND_DEADLINE_MS: '30000', QIM_SHUTDOWN_DEADLINE_MS: '60000' }).message).toMatch(
      /QIM_RECOVERY_GRACE_MS: must be longer than QIM_SEND_DEADLINE_MS \(20000 ≤ 30000 ms\)/,
    );
  });

  it('refuses a produce pace not shorter than the send deadline, naming both variables', () => {
    const e = refusal({
      ...base,
      QIM_SEND_DEADLINE_MS: '100',
      QIM_RECOVERY_GRACE_MS: '200',
      QIM_SHUTDOWN_DEADLINE_MS: '1000',
      QIM_KAFKA_PRODUCE_PACE_MS: '100',
    });
    expect(e.issues.map((i) => i.variable)).toEqual(['QIM_KAFKA_PRODUCE_PACE_MS']);
    expect(e.message).toContain('QIM_SEND_DEADLINE_MS');
  });

  it('refuses a shutdown deadline that cannot drain a send, naming both variables', () => {
    const e = refusal({ ...base, QIM_SHUTDOWN_DEADLINE_MS: '10000' });
    expect(e.issues.map((i) => i.variable)).toEqual(['QIM_SHUTDOWN_DEADLINE_MS']);
    expect(e.message).toContain('QIM_SEND_DEADLINE_MS');
  });

  it('range-checks the new variables', () => {
    const bad = { QIM_SEND_DEADLINE_MS: '10', QIM_HOUSEKEEPING_BATCH: '0', QIM_HTTP_REQUEST_TIMEOUT_MS: 'soon', QIM_LEASE_REACQUIRE_MS: '-1' };
    expect(
      refusal({ ...base, ...bad })
        .issues.map((i) => i.variable)
        .sort(),
    ).toEqual(Object.keys(bad).sort());
  });
});

describe('writer batch sends', () => {
  it('defaults to 100 sends and 4 MiB per batch; reads both; refuses a bound out of range', () => {
    expect(parseServiceEnv(writerEnvSchema, base).sendBatch).toEqual({ maxItems: 100, bodyLimit: 4 * 1024 * 1024 });
    expect(parseServiceEnv(writerEnvSchema, { ...base, QIM_SEND_BATCH_MAX: '7', QIM_SEND_BATCH_BODY_LIMIT_BYTES: '65536' }).sendBatch).toEqual({
      maxItems: 7,
      bodyLimit: 65_536,
    });
    expect(refusal({ ...base, QIM_SEND_BATCH_MAX: '0' }).issues.map((i) => i.variable)).toEqual(['QIM_SEND_BATCH_MAX']);
    expect(refusal({ ...base, QIM_SEND_BATCH_BODY_LIMIT_BYTES: '10' }).issues.map((i) => i.variable)).toEqual(['QIM_SEND_BATCH_BODY_LIMIT_BYTES']);
  });
});

describe('WRITER_VARIABLES (service-kit’s list of the names, for refusing unknown variables)', () => {
  it('is exactly the writer schema’s own variables', () => {
    expect([...WRITER_VARIABLES].sort()).toEqual(
      Object.keys(writerEnvShape)
        .filter((k) => !(k in commonEnvShape))
        .sort(),
    );
  });
});
