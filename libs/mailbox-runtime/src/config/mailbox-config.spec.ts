import { maxRetentionDays } from '@qim/store-core';
import { ConfigError } from '@qim/service-kit';
import { parseServiceEnv } from '@qim/backends';
import { MAILBOX_VARIABLES, commonEnvShape } from '@qim/service-kit';
import { mailboxEnvSchema, mailboxEnvShape } from './mailbox-config';

const env = {
  QIM_SERVICE_TOKEN: 'a-long-enough-service-token',
  QIM_KAFKA_BROKERS: '127.0.0.1:19092',
  QIM_REDIS_URL: 'redis://127.0.0.1:16379',
  QIM_MAILBOX_SHARDS: '4',
  QIM_MAILBOX_EPOCH: '0',
};

function refusal(vars: Record<string, string>): ConfigError {
  try {
    parseServiceEnv(mailboxEnvSchema, vars);
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('mailbox clock-skew allowance and retention bound (issue 10 items 3, 4)', () => {
  it('QIM_CLOCK_SKEW_MS defaults to 1000 ms and is range-checked', () => {
    expect(parseServiceEnv(mailboxEnvSchema, env).clockSkewAllowanceMs).toBe(1_000n);
    expect(parseServiceEnv(mailboxEnvSchema, { ...env, QIM_CLOCK_SKEW_MS: '0' }).clockSkewAllowanceMs).toBe(0n);
    expect(parseServiceEnv(mailboxEnvSchema, { ...env, QIM_CLOCK_SKEW_MS: '60000' }).clockSkewAllowanceMs).toBe(60_000n);
    for (const bad of ['-1', '60001', 'soon']) {
      expect(refusal({ ...env, QIM_CLOCK_SKEW_MS: bad }).issues.map((i) => i.variable)).toEqual(['QIM_CLOCK_SKEW_MS']);
    }
  });

  it('the largest retention the ledger holds (from store-core) is accepted; one day more is refused naming the variable and the limit', () => {
    const max = maxRetentionDays(1_000n);
    expect(max).toBe(30);
    expect(parseServiceEnv(mailboxEnvSchema, { ...env, QIM_MAILBOX_RETENTION_DAYS: String(max) }).entryRetentionMs).toBe(BigInt(max) * 86_400_000n);
    const err = refusal({ ...env, QIM_MAILBOX_RETENTION_DAYS: String(max + 1) });
    expect(err.issues).toHaveLength(1);
    expect(err.issues[0]!.variable).toBe('QIM_MAILBOX_RETENTION_DAYS');
    expect(err.issues[0]!.message).toMatch(/at most 30 days/);
    expect(err.message).toMatch(/QIM_MAILBOX_RETENTION_DAYS/);
  });

  it('the bound follows the configured skew: 31 days with QIM_CLOCK_SKEW_MS=0', () => {
    expect(parseServiceEnv(mailboxEnvSchema, { ...env, QIM_CLOCK_SKEW_MS: '0', QIM_MAILBOX_RETENTION_DAYS: '31' }).entryRetentionMs).toBe(31n * 86_400_000n);
    expect(refusal({ ...env, QIM_CLOCK_SKEW_MS: '0', QIM_MAILBOX_RETENTION_DAYS: '32' }).issues[0]!.message).toMatch(/at most 31 days/);
    // the old upper bound (3650) is refused too, not silently accepted
    expect(refusal({ ...env, QIM_MAILBOX_RETENTION_DAYS: '3650' }).issues.map((i) => i.variable)).toEqual(['QIM_MAILBOX_RETENTION_DAYS']);
  });
});

describe('MAILBOX_VARIABLES (service-kit’s list of the names, for refusing unknown variables)', () => {
  it('is exactly the mailbox schema’s own variables', () => {
    expect([...MAILBOX_VARIABLES].sort()).toEqual(
      Object.keys(mailboxEnvShape)
        .filter((k) => !(k in commonEnvShape))
        .sort(),
    );
  });
});
