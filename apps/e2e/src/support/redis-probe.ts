import net from 'node:net';

/**
 * A minimal RESP client for assertions about what the services wrote (the e2e project may not use
 * the Redis driver). Supports commands whose replies are integers, bulk strings or arrays of them.
 */
export async function redisCommand(url: string, ...args: string[]): Promise<unknown> {
  const u = new URL(url);
  const db = u.pathname.length > 1 ? u.pathname.slice(1) : '0';
  const encode = (a: string[]) => `*${a.length}\r\n${a.map((x) => `$${Buffer.byteLength(x)}\r\n${x}\r\n`).join('')}`;
  return new Promise((resolve, reject) => {
    const sock = net.connect(Number(u.port || 6379), u.hostname);
    let buf = Buffer.alloc(0);
    sock.on('error', reject);
    sock.on('connect', () => sock.write(encode(['SELECT', db]) + encode(args)));
    sock.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      const parsed = parseAll(buf, 2);
      if (parsed) {
        sock.end();
        resolve(parsed[1]);
      }
    });
  });
}

function parseAll(b: Buffer, count: number): unknown[] | null {
  const out: unknown[] = [];
  let pos = 0;
  for (let i = 0; i < count; i++) {
    const r = parseOne(b, pos);
    if (!r) return null;
    out.push(r.value);
    pos = r.next;
  }
  return out;
}

function parseOne(b: Buffer, pos: number): { value: unknown; next: number } | null {
  const eol = b.indexOf('\r\n', pos);
  if (eol < 0) return null;
  const head = b.toString('utf8', pos, eol);
  const rest = eol + 2;
  switch (head[0]) {
    case '+':
      return { value: head.slice(1), next: rest };
    case '-':
      return { value: new Error(head.slice(1)), next: rest };
    case ':':
      return { value: Number(head.slice(1)), next: rest };
    case '$': {
      const n = Number(head.slice(1));
      if (n < 0) return { value: null, next: rest };
      if (b.length < rest + n + 2) return null;
      return { value: b.toString('utf8', rest, rest + n), next: rest + n + 2 };
    }
    case '*': {
      const n = Number(head.slice(1));
      const items: unknown[] = [];
      let p = rest;
      for (let i = 0; i < n; i++) {
        const r = parseOne(b, p);
        if (!r) return null;
        items.push(r.value);
        p = r.next;
      }
      return { value: items, next: p };
    }
    default:
      throw new Error(`unexpected RESP reply ${head}`);
  }
}

/** Every key matching `pattern` (SCAN). */
export async function redisKeys(url: string, pattern: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = (await redisCommand(url, 'SCAN', cursor, 'MATCH', pattern, 'COUNT', '1000')) as [string, string[]];
    keys.push(...batch);
    cursor = next;
  } while (cursor !== '0');
  return keys;
}
