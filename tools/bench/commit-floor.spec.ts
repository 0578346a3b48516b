import { FLOOR_SCRIPTS, encodeFloorCall, floorCommit, hashTagOf } from './commit-floor';

/** Reads a RESP array of bulk strings back into its parts (what the server would see). */
function decodeRespArray(bytes: Buffer): Buffer[] {
  let at = 0;
  const line = (): string => {
    const end = bytes.indexOf('\r\n', at);
    const s = bytes.subarray(at, end).toString('latin1');
    at = end + 2;
    return s;
  };
  const head = line();
  expect(head[0]).toBe('*');
  const out: Buffer[] = [];
  for (let i = 0; i < Number(head.slice(1)); i++) {
    const len = line();
    expect(len[0]).toBe('$');
    const n = Number(len.slice(1));
    out.push(bytes.subarray(at, at + n));
    expect(bytes.subarray(at + n, at + n + 2).toString()).toBe('\r\n');
    at += n + 2;
  }
  expect(at).toBe(bytes.length);
  return out;
}

describe('the commit floor (the benchmark beside the Redis commit)', () => {
  const identity = Buffer.alloc(32, 0xab);
  const body = Buffer.from([0, 13, 10, 36, 42, 255]); // bytes that look like RESP framing

  it('keeps every script on one hash tag, the commit tag the same before and after the publish', () => {
    for (const n of [0, 1, 63, 64, 255, 256, 1_000_003]) {
      const { beforePublish, afterPublish } = floorCommit('ns', n, identity, body, 1);
      for (const call of [...beforePublish, afterPublish]) {
        const tags = new Set(call.keys.map(hashTagOf));
        expect(tags.size).toBe(1);
        expect([...tags][0]).not.toBe(call.keys[0]);
      }
      expect(hashTagOf(afterPublish.keys[0]!)).toBe(hashTagOf(beforePublish[0].keys[0]!));
      expect(afterPublish.keys).toEqual(beforePublish[0].keys);
      expect(hashTagOf(beforePublish[1].keys[0]!)).not.toBe(hashTagOf(beforePublish[0].keys[0]!));
    }
  });

  it('gives distinct commits distinct claim keys', () => {
    const keys = new Set(Array.from({ length: 500 }, (_, n) => floorCommit('ns', n, identity, body, 1).beforePublish[0].keys[0]));
    expect(keys.size).toBe(500);
  });

  it('reads the hash tag as Redis Cluster does', () => {
    expect(hashTagOf('a:{cs:1}:b')).toBe('cs:1');
    expect(hashTagOf('a:{}:{x}')).toBe('a:{}:{x}');
    expect(hashTagOf('plain')).toBe('plain');
    expect(hashTagOf('a{b}c{d}')).toBe('b');
  });

  it('encodes EVALSHA binary-safe, with the key count and every key and argument in order', () => {
    const call = floorCommit('ns', 7, identity, body, 123).beforePublish[0];
    const parts = decodeRespArray(encodeFloorCall('f'.repeat(40), call));
    expect(parts.map((p) => p.toString('latin1')).slice(0, 3)).toEqual(['evalsha', 'f'.repeat(40), '2']);
    expect(parts.slice(3, 5).map(String)).toEqual(call.keys);
    expect(parts.slice(5)).toEqual(call.args.map((a) => (typeof a === 'string' ? Buffer.from(a) : a)));
    expect(parts[6]).toEqual(body);
  });

  it('declares every key a script touches as a KEYS argument', () => {
    for (const [name, lua] of Object.entries(FLOOR_SCRIPTS)) {
      const used = new Set([...lua.matchAll(/KEYS\[(\d)\]/g)].map((m) => Number(m[1])));
      const { beforePublish, afterPublish } = floorCommit('ns', 3, identity, body, 1);
      const call = [...beforePublish, afterPublish].find((c) => c.script === name)!;
      expect(Math.max(...used)).toBe(call.keys.length);
    }
  });
});
