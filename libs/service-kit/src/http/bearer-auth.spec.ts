import { bearerTokenOf, secretsEqual } from './bearer-auth';

describe('bearer auth helpers', () => {
  it('compares secrets exactly, whatever their lengths', () => {
    expect(secretsEqual('s3cret-token-abcdef', 's3cret-token-abcdef')).toBe(true);
    expect(secretsEqual('s3cret-token-abcdeF', 's3cret-token-abcdef')).toBe(false);
    expect(secretsEqual('short', 's3cret-token-abcdef')).toBe(false);
    expect(secretsEqual('', 's3cret-token-abcdef')).toBe(false);
  });

  it('extracts only a well-formed bearer token', () => {
    expect(bearerTokenOf('Bearer abc.def')).toBe('abc.def');
    expect(bearerTokenOf(undefined)).toBeNull();
    expect(bearerTokenOf('Basic abc')).toBeNull();
    expect(bearerTokenOf('Bearer ')).toBeNull();
    expect(bearerTokenOf('Bearer a b')).toBeNull();
  });
});
