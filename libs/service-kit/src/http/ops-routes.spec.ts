import { NEXT, TOKEN, opsApp } from '../testing/ops-app';
import type { ReadinessCheck, ReadinessResult } from './readiness';

const failing: ReadinessCheck = { name: 'store', check: async () => ({ ok: false, detail: 'connect ECONNREFUSED 10.1.2.3:6379' }) };
const throwing: ReadinessCheck = {
  name: 'kafka',
  check: async () => {
    throw new Error('Connection error: connect ECONNREFUSED 10.9.8.7:9092');
  },
};

describe('/readyz', () => {
  it('answers only a short status without the token: no check names, driver text or addresses', async () => {
    const app = await opsApp([failing, throwing]);
    const r = await app.inject({ url: '/readyz' });
    expect(r.statusCode).toBe(503);
    expect(r.json()).toEqual({ status: 'not_ready' });
    expect(r.body).not.toMatch(/ECONNREFUSED|10\.|store|kafka/);
    await app.close();
  });

  it('answers every check with its detail to a caller presenting a valid token (any of them)', async () => {
    const app = await opsApp([failing, throwing]);
    for (const token of [TOKEN, NEXT]) {
      const r = await app.inject({ url: '/readyz', headers: { authorization: `Bearer ${token}` } });
      expect(r.statusCode).toBe(503);
      expect(r.json()).toEqual({
        status: 'not_ready',
        checks: {
          store: { ok: false, detail: 'connect ECONNREFUSED 10.1.2.3:6379' },
          kafka: { ok: false, detail: 'Connection error: connect ECONNREFUSED 10.9.8.7:9092' },
        },
      });
    }
    await app.close();
  });

  it('refuses a wrong token with 401 (a misconfigured probe is told, not served the public answer)', async () => {
    const app = await opsApp([failing]);
    const r = await app.inject({ url: '/readyz', headers: { authorization: 'Bearer not-the-token-at-all' } });
    expect([r.statusCode, r.json().code]).toEqual([401, 'UNAUTHORIZED']);
    await app.close();
  });

  it('a 503 carries Retry-After; a 200 is the same short status', async () => {
    const app = await opsApp([failing]);
    expect((await app.inject({ url: '/readyz' })).headers['retry-after']).toBe('1');
    await app.close();
    const ok = await opsApp([{ name: 'store', check: async () => ({ ok: true, detail: { backend: 'redis' } }) }]);
    const r = await ok.inject({ url: '/readyz' });
    expect([r.statusCode, r.json()]).toEqual([200, { status: 'ready' }]);
    await ok.close();
  });

  it('a flood of requests runs the checks once: concurrent callers share one run, later ones its cached result', async () => {
    let runs = 0;
    let release: (r: ReadinessResult) => void = () => undefined;
    const held: ReadinessCheck = {
      name: 'held',
      check: () => {
        runs += 1;
        return new Promise((resolve) => (release = resolve));
      },
    };
    let now = 1_000;
    const app = await opsApp([held], { now: () => now });
    const flood = Array.from({ length: 50 }, (_, i) => app.inject({ url: '/readyz', headers: i % 2 === 0 ? {} : { authorization: `Bearer ${TOKEN}` } }));
    while (runs === 0) await new Promise((r) => setImmediate(r));
    release({ ok: true });
    const answers = await Promise.all(flood);
    expect(answers.every((a) => a.statusCode === 200)).toBe(true);
    expect(runs).toBe(1);
    now += 999;
    expect((await app.inject({ url: '/readyz' })).statusCode).toBe(200);
    expect(runs).toBe(1);
    now += 1;
    const again = app.inject({ url: '/readyz' });
    while (runs === 1) await new Promise((r) => setImmediate(r));
    release({ ok: false, detail: 'now failing' });
    expect((await again).statusCode).toBe(503);
    expect(runs).toBe(2);
    await app.close();
  });
});
