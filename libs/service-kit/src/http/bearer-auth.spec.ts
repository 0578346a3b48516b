import { bearerTokenOf, secretMatcher } from './bearer-auth';

describe('bearer auth helpers', () => {
  it('compares secrets exactly, whatever their lengths', () => {
    const matches = secretMatcher('s3cret-token-abcdef');
    expect(matches('s3cret-token-abcdef')).toBe(true);
    expect(matches('s3cret-token-abcdeF')).toBe(false);
    expect(matches('short')).toBe(false);
    expect(matches('')).toBe(false);
    expect(matches('s3cret-token-abcdef-and-more')).toBe(false);
  });

  it('extracts only a well-formed bearer token', () => {
    expect(bearerTokenOf('Bearer abc.def')).toBe('abc.def');
    expect(bearerTokenOf(undefined)).toBeNull();
    expect(bearerTokenOf('Basic abc')).toBeNull();
    expect(bearerTokenOf('Bearer ')).toBeNull();
    expect(bearerTokenOf('Bearer a b')).toBeNull();
  });
});
