import { LUA_SCRIPTS } from '../generated/lua-scripts';
import { hashTagOf } from '../keys/hash-tag';
import type { ScriptCall } from '../redis/redis-io';

/**
 * The hash tags a script call touches: those of its KEYS and of every key prefix it passes in ARGV
 * (scripts build their variable keys from such prefixes). Exactly one tag = cluster-safe.
 */
export function tagsOf(call: ScriptCall): Set<string> {
  const prefixes = call.args.filter((a): a is string => typeof a === 'string' && /\{[^}]+\}:/.test(a));
  return new Set([...call.keys, ...prefixes].map(hashTagOf));
}

/** Asserts arity and that a call touches a single hash tag. */
export function expectClusterSafe(call: ScriptCall): void {
  expect(call.keys).toHaveLength(LUA_SCRIPTS[call.script].numberOfKeys ?? Number.NaN);
  expect(tagsOf(call).size).toBe(1);
}
