import { errors } from 'cassandra-driver';
import type { Client } from 'cassandra-driver';
import { InvariantViolationError, UnavailableError } from '@qim/store-core';
import { CqlRunner } from './cql-runner';
import { InFlightLimit } from './in-flight-limit';
import { StatementCounter } from './statement-counter';
import { LWT, READ, WRITE, named } from './statements';

const SELECT = named('t.select', 'SELECT v FROM {ks}.t WHERE k = ?', READ);
const UPSERT = named('t.upsert', 'INSERT INTO {ks}.t (k, v) VALUES (?, ?)', WRITE);
const CAS = named('t.cas', 'UPDATE {ks}.t SET v = ? WHERE k = ? IF v = ?', LWT);

interface Sent {
  readonly cql: string;
  readonly options: Record<string, unknown>;
}

/** A driver stand-in: records what it was sent, answers from `answer`, holds every request until `release`. */
function fakeClient(answer: (cql: string) => Promise<unknown>) {
  const sent: Sent[] = [];
  let open = 0;
  let peak = 0;
  const track = async (cql: string, options: Record<string, unknown>) => {
    sent.push({ cql, options });
    open += 1;
    peak = Math.max(peak, open);
    try {
      await new Promise((r) => setImmediate(r));
      return await answer(cql);
    } finally {
      open -= 1;
    }
  };
  const client = {
    execute: (cql: string, _params: unknown[], options: Record<string, unknown>) => track(cql, options),
    batch: (queries: { query: string }[], options: Record<string, unknown>) => track(queries.map((q) => q.query).join('; '), options),
  } as unknown as Client;
  return { client, sent, peak: () => peak };
}

const ok = (rows: Record<string, unknown>[] = []) => Promise.resolve({ rows, pageState: null });

describe('CqlRunner', () => {
  it('runs every statement prepared, under its profile and idempotence, in its keyspace', async () => {
    const fake = fakeClient((cql) => ok(cql.startsWith('UPDATE') ? [{ '[applied]': true }] : []));
    const runner = new CqlRunner(fake.client, 'ks_l', new StatementCounter(), new InFlightLimit(4));
    await runner.run(SELECT, [1]);
    expect((await runner.lwt(CAS, [2, 1, 1])).applied).toBe(true);
    await runner.batch([
      { statement: UPSERT, params: [1, 2] },
      { statement: UPSERT, params: [3, 4] },
    ]);
    expect(fake.sent.map((s) => s.cql)).toEqual([
      'SELECT v FROM ks_l.t WHERE k = ?',
      'UPDATE ks_l.t SET v = ? WHERE k = ? IF v = ?',
      'INSERT INTO ks_l.t (k, v) VALUES (?, ?); INSERT INTO ks_l.t (k, v) VALUES (?, ?)',
    ]);
    expect(fake.sent.map((s) => [s.options['prepare'], s.options['executionProfile'], s.options['isIdempotent']])).toEqual([
      [true, 'read', true],
      [true, 'lwt', false],
      [true, 'write', true],
    ]);
  });

  it('counts executions per named step, LWTs apart; a batch is one request and counts each part by name', async () => {
    const fake = fakeClient((cql) => ok(cql.startsWith('UPDATE') ? [{ '[applied]': false, v: 7 }] : []));
    const counter = new StatementCounter();
    const runner = new CqlRunner(fake.client, 'ks_l', counter, new InFlightLimit(4));
    await runner.lwt(CAS, [2, 1, 1]);
    await runner.lwt(CAS, [3, 1, 7]);
    await runner.one(SELECT, [1]);
    await runner.batch([
      { statement: UPSERT, params: [1, 2] },
      { statement: UPSERT, params: [3, 4] },
    ]);
    expect(counter.snapshot()).toEqual([
      { name: 't.cas', lwt: true, count: 2 },
      { name: 't.select', lwt: false, count: 1 },
      { name: 't.upsert', lwt: false, count: 2 },
    ]);
    expect(counter.lwtCount()).toBe(2);
    expect(counter.lwtCount('t.select')).toBe(0);
    expect(counter.requests).toBe(4);
  });

  it('counts the round trips waited for one after another: requests sent together count once, a reset starts anew', async () => {
    const fake = fakeClient(() => ok());
    const counter = new StatementCounter();
    const runner = new CqlRunner(fake.client, 'ks_l', counter, new InFlightLimit(4));
    await runner.run(SELECT, [1]);
    await Promise.all([runner.run(UPSERT, [1, 1]), runner.run(UPSERT, [2, 2]), runner.run(SELECT, [3])]);
    await runner.run(UPSERT, [3, 3]);
    expect(counter.sequentialRounds).toBe(3);
    expect(counter.requests).toBe(5);
    expect(counter.requestsInFlight).toBe(0);
    counter.reset();
    expect(counter.sequentialRounds).toBe(0);
    await Promise.all([runner.run(SELECT, [1]), runner.run(SELECT, [2])]);
    expect(counter.sequentialRounds).toBe(1);
  });

  it('holds at most `limit` requests at the driver; the rest wait (backpressure)', async () => {
    const fake = fakeClient(() => ok());
    const counter = new StatementCounter();
    const runner = new CqlRunner(fake.client, 'ks_l', counter, new InFlightLimit(3));
    await Promise.all(Array.from({ length: 50 }, (_, k) => runner.run(UPSERT, [k, k])));
    expect(fake.sent).toHaveLength(50);
    expect(fake.peak()).toBe(3);
    expect(counter.peakInFlight).toBe(3);
  });

  it(
    'maps driver errors in one place: a saturated connection or a closed socket → UnavailableError, ' + 'a rejected statement → InvariantViolationError',
    async () => {
      const busy = new errors.BusyConnectionError('127.0.0.1:9042', 2048, 1);
      const socket = Object.assign(new Error('socket closed'), { isSocketError: true });
      const rejected = new errors.ResponseError(0x2200, 'invalid');
      for (const [err, type] of [
        [busy, UnavailableError],
        [socket, UnavailableError],
        [rejected, InvariantViolationError],
      ] as const) {
        const runner = new CqlRunner(fakeClient(() => Promise.reject(err)).client, 'ks_l', new StatementCounter(), new InFlightLimit(2));
        await expect(runner.run(SELECT, [1])).rejects.toBeInstanceOf(type);
        await expect(runner.batch([{ statement: UPSERT, params: [1, 2] }])).rejects.toBeInstanceOf(type);
      }
    },
  );

  it('refuses an LWT in a batch and a plain statement as an LWT, before anything is sent', async () => {
    const fake = fakeClient(() => ok());
    const runner = new CqlRunner(fake.client, 'ks_l', new StatementCounter(), new InFlightLimit(2));
    await expect(runner.batch([{ statement: CAS, params: [1, 2, 3] }])).rejects.toBeInstanceOf(InvariantViolationError);
    await expect(runner.lwt(UPSERT, [1, 2])).rejects.toBeInstanceOf(InvariantViolationError);
    expect(fake.sent).toHaveLength(0);
  });
});
