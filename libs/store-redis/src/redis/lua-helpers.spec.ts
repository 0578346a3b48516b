import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { encodeActiveLedger } from '@qim/store-core';
import type { Redis } from 'ioredis';
import { testClient } from '../testing/redis-test-env';
import { u64ToHex16 } from './hex64';

const include = (name: string): string => readFileSync(join(__dirname, '..', '..', 'lua', 'includes', `${name}.lua`), 'utf8');

/** Runs `body` after the given includes on the real server (EVAL, no keys). */
async function lua(redis: Redis, includes: readonly string[], body: string, ...args: (string | Buffer)[]): Promise<unknown> {
  return redis.eval([...includes.map(include), body].join('\n'), 0, ...args);
}

describe('Lua helpers on the real server', () => {
  let redis: Redis;
  beforeAll(() => {
    redis = testClient();
  });
  afterAll(async () => {
    await redis.quit();
  });

  it('hexCmp orders u64 exactly across the 2^53 float limit and the 32-bit halves; hexInc carries', async () => {
    const values = [0n, 1n, 0xffff_ffffn, 0x1_0000_0000n, (1n << 53n) - 1n, 1n << 53n, (1n << 53n) + 1n, (1n << 63n) - 2n, (1n << 63n) - 1n];
    const hex = values.map((v) => u64ToHex16(v));
    for (let i = 0; i < hex.length; i++) {
      for (let j = 0; j < hex.length; j++) {
        expect(await lua(redis, ['hex-u64'], 'return hexCmp(ARGV[1], ARGV[2])', hex[i]!, hex[j]!)).toBe(Math.sign(i - j));
      }
    }
    for (const v of [0n, 0xffff_fffen, 0xffff_ffffn, (1n << 53n) - 1n, (1n << 63n) - 2n]) {
      expect(await lua(redis, ['hex-u64'], 'return hexInc(ARGV[1])', u64ToHex16(v))).toBe(u64ToHex16(v + 1n));
    }
    expect(await lua(redis, ['hex-u64'], 'return {hexMax(ARGV[1], ARGV[2]), hexMin(ARGV[1], ARGV[2])}', hex[5]!, hex[6]!)).toEqual([hex[6], hex[5]]);
  });

  it('parseLedger reads exactly what the store-core codec writes, and refuses damage', async () => {
    const items = [
      { day: 0, maxSeq: 1n, expiresAt: 2n },
      { day: 20_000, maxSeq: (1n << 62n) + 5n, expiresAt: 1_800_000_000_000n },
      { day: 0xffff_ffff, maxSeq: (1n << 63n) - 1n, expiresAt: (1n << 63n) - 1n },
    ];
    const blob = encodeActiveLedger(items);
    const body =
      'local l = parseLedger(ARGV[1]); if not l then return false end; ' +
      'local out = {}; for _, i in ipairs(l) do out[#out+1] = {i.day, i.max, i.exp} end; return out';
    expect(await lua(redis, ['active-ledger'], body, blob)).toEqual(items.map((i) => [i.day, u64ToHex16(i.maxSeq), u64ToHex16(i.expiresAt)]));
    expect(await lua(redis, ['active-ledger'], body, encodeActiveLedger([]))).toEqual([]);
    for (const bad of [blob.subarray(0, blob.length - 1), Buffer.concat([blob, Buffer.from([0])]), Buffer.from('QRL\x02\x00\x00'), Buffer.alloc(0)]) {
      expect(await lua(redis, ['active-ledger'], body, bad)).toBeNull();
    }
  });

  it('ledgerDayExpiry reads a day’s expiry (ms) from the blob: false without the day or at/above 2^52, nil for damage', async () => {
    const items = [
      { day: 19_000, maxSeq: 1n, expiresAt: 1_700_000_000_123n },
      { day: 19_001, maxSeq: 1n, expiresAt: (1n << 52n) - 1n },
      { day: 19_002, maxSeq: 1n, expiresAt: 1n << 52n },
    ];
    const blob = encodeActiveLedger(items);
    const body =
      "local v = ledgerDayExpiry(ARGV[1], tonumber(ARGV[2])) if v == nil then return 'nil' end " +
      "if v == false then return 'false' end return string.format('%.0f', v)";
    expect(await lua(redis, ['ledger-day'], body, blob, '19000')).toBe('1700000000123');
    expect(await lua(redis, ['ledger-day'], body, blob, '19001')).toBe(String((1n << 52n) - 1n));
    expect(await lua(redis, ['ledger-day'], body, blob, '19002')).toBe('false');
    expect(await lua(redis, ['ledger-day'], body, blob, '19003')).toBe('false');
    expect(await lua(redis, ['ledger-day'], body, blob.subarray(0, blob.length - 1), '19000')).toBe('nil');
    const fast = "local v = fastMs(ARGV[1]) return v and string.format('%.0f', v) or 'nil'";
    expect(await lua(redis, ['ledger-day'], fast, u64ToHex16(1_700_000_000_123n))).toBe('1700000000123');
    expect(await lua(redis, ['ledger-day'], fast, u64ToHex16(1n << 52n))).toBe('nil');
  });

  it('expireOnce never fires before max(logical expiry, server now) + grace and is never renewed', async () => {
    const key = `qimt-helpers:{x}:${Date.now()}`;
    await redis.set(key, 'v');
    const far = Date.now() + 86_400_000;
    const script = "expireOnce(KEYS[1], ARGV[1], ARGV[2]); return redis.call('PEXPIRETIME', KEYS[1])";
    const src = [include('physical-expiry'), script].join('\n');
    const first = Number(await redis.eval(src, 1, key, String(far), '5000'));
    expect(first).toBe(far + 5000);
    const again = Number(await redis.eval(src, 1, key, String(far + 999_999), '5000'));
    expect(again).toBe(first);
    const past = `${key}:past`;
    await redis.set(past, 'v');
    const before = Date.now();
    const at = Number(await redis.eval(src, 1, past, '1000', '60000'));
    expect(at).toBeGreaterThanOrEqual(before + 60_000 - 1000);
    expect(await redis.exists(past)).toBe(1);
    await redis.del(key, past);
  });
});
