import fc from 'fast-check';
import { idArb } from '../testing/arbitraries';
import { InvalidInputError } from '../errors/domain-errors';
import type { Id128 } from '../model/ids';
import { isId128 } from '../model/ids';
import { dispatchIdOf, MAX_SHARD_COUNT, shardOf } from './sharding';
import golden from './sharding-golden.json';

const A = '00000000000000000000000000000001' as Id128;
const B = '0123456789abcdef0123456789abcdef' as Id128;
const C = 'ffffffffffffffffffffffffffffffff' as Id128;
const D = 'a1b2c3d4e5f60718293a4b5c6d7e8f90' as Id128;

describe('sharding golden vectors (changing any is an epoch change)', () => {
  it.each(golden.vectors.map((v) => [v.tenant, v.user, v.shard16, v.shard1000] as const))(
    'tenant %s user %s → shard16 %i, shard1000 %i',
    (t, u, s16, s1000) => {
      expect(shardOf(t as Id128, u as Id128, 16)).toBe(s16);
      expect(shardOf(t as Id128, u as Id128, 1000)).toBe(s1000);
    },
  );

  it.each([
    [A, 0, '799d768b67b5ed56942e5c2e6cc3e0c1'],
    [A, 1, '4946dd634fb941663a705c5bd1497bd5'],
    [A, 65535, '985073cf58c06ac52954d68a637e07d5'],
    [B, 0, 'ca09611f638c3c2a6f51ea70cc858878'],
    [B, 65535, '9249de2caa5728a0137f1a49678ace6e'],
    [C, 1, '7c10d919808da96abcfa732c2780adda'],
    [D, 0, '982462acc14195e01fd1d546f4998214'],
  ])('dispatchIdOf(%s, %i) = %s', (m, shard, expected) => {
    expect(dispatchIdOf(m, shard)).toBe(expected);
  });
});

describe('sharding ranges', () => {
  it('shard ∈ [0, count), dispatch id is a canonical id', () => {
    fc.assert(
      fc.property(idArb, idArb, fc.integer({ min: 1, max: MAX_SHARD_COUNT }), (t, u, count) => {
        const s = shardOf(t, u, count);
        expect(Number.isInteger(s) && s >= 0 && s < count).toBe(true);
        expect(isId128(dispatchIdOf(u, s))).toBe(true);
      }),
    );
  });

  it('one shard count of 1 puts everyone on shard 0; different shards give different dispatch ids', () => {
    expect(shardOf(B, C, 1)).toBe(0);
    expect(dispatchIdOf(A, 0)).not.toBe(dispatchIdOf(A, 1));
  });

  it('rejects bad shard counts and shards', () => {
    for (const n of [0, -1, 1.5, MAX_SHARD_COUNT + 1]) expect(() => shardOf(A, B, n)).toThrow(InvalidInputError);
    for (const s of [-1, 65536, 0.5]) expect(() => dispatchIdOf(A, s)).toThrow(InvalidInputError);
  });
});
