import type { Id128 } from '@qim/store-core';
import { RedisKeys } from '../keys/redis-keys';
import { UserKeysCache } from './user-keys-cache';

const id = (c: string): Id128 => c.repeat(32) as Id128;

describe('UserKeysCache', () => {
  const keys = new RedisKeys('t');

  it("answers RedisKeys' names, computing each user's once", () => {
    const cache = new UserKeysCache(keys, 10);
    const spy = jest.spyOn(keys, 'user');
    try {
      const first = cache.user(id('a'), id('b'), `${id('a')}${id('b')}`);
      expect(cache.user(id('a'), id('b'), `${id('a')}${id('b')}`)).toBe(first);
      expect(first.prefix).toBe(keys.user(id('a'), id('b')).prefix);
      expect(spy).toHaveBeenCalledTimes(2);
    } finally {
      spy.mockRestore();
    }
    expect(cache.bucket(7)).toEqual(keys.mailboxBucket(7));
    expect(cache.bucket(7)).toBe(cache.bucket(7));
  });

  it('drops the oldest user beyond its capacity', () => {
    const cache = new UserKeysCache(keys, 2);
    const [a, b, c] = ['a', 'b', 'c'].map((x) => cache.user(id('1'), id(x), `${id('1')}${id(x)}`));
    expect(cache.user(id('1'), id('c'), `${id('1')}${id('c')}`)).toBe(c);
    expect(cache.user(id('1'), id('b'), `${id('1')}${id('b')}`)).toBe(b);
    expect(cache.user(id('1'), id('a'), `${id('1')}${id('a')}`)).not.toBe(a);
  });
});
