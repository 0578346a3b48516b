import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  ConflictError,
  CorruptEntryError,
  FrontierGapError,
  InvalidInputError,
  InvalidStateError,
  InvariantViolationError,
  NotFoundError,
} from '@qim/store-core';
import { LUA_CODE_NAMES, ScriptCode, errorForCode } from './script-codes';

describe('script result codes', () => {
  it('the TypeScript table equals lua/includes/result-codes.lua', () => {
    const lua = readFileSync(join(__dirname, '..', '..', 'lua', 'includes', 'result-codes.lua'), 'utf8');
    const inLua = new Map([...lua.matchAll(/^local (\w+) = (-?\d+)$/gm)].map((m) => [m[1]!, Number(m[2])]));
    const inTs = new Map(Object.entries(ScriptCode).map(([k, v]) => [LUA_CODE_NAMES[k as keyof typeof ScriptCode], v]));
    expect(inLua).toEqual(inTs);
  });

  it('negative codes map to the domain errors Memory raises', () => {
    const cases: [number, abstract new (...a: never[]) => Error][] = [
      [ScriptCode.NOT_FOUND, NotFoundError],
      [ScriptCode.CONFLICT, ConflictError],
      [ScriptCode.INVALID_STATE, InvalidStateError],
      [ScriptCode.CORRUPT, CorruptEntryError],
      [ScriptCode.INVALID_INPUT, InvalidInputError],
      [ScriptCode.FRONTIER_GAP, FrontierGapError],
    ];
    for (const [code, cls] of cases) expect(errorForCode(code, 'ctx')).toBeInstanceOf(cls);
  });

  it('codes the wrappers must handle themselves are invariant violations when they leak', () => {
    for (const code of [ScriptCode.CAS_LOST, ScriptCode.NEEDS_INSPECT, ScriptCode.CURSOR_EXPIRED, ScriptCode.OVER_LIMIT, -99]) {
      expect(errorForCode(code, 'ctx')).toBeInstanceOf(InvariantViolationError);
    }
  });
});
