import { randomBytes } from 'node:crypto';
import { types } from 'cassandra-driver';
import {
  ConflictError,
  DurableMessageCommitter,
  InvalidInputError,
  InvariantViolationError,
  UnavailableError,
  id128ToBytes,
  recordFromIntent,
} from '@qim/store-core';
import type { Id128, OutboxPublisher, ReserveInput, SendRequest } from '@qim/store-core';
import { SCYLLA_MESSAGE_FAULT_POINTS } from './scylla-message-faults';
import type { ScyllaMessageFaultPoint, ScyllaMessageFaults } from './scylla-message-faults';
import { COMMIT_CQL } from './tables/commit-table';
import { HISTORY_INDEX_CQL } from './tables/history-index-table';
import { RECORD_CQL } from './tables/record-table';
import { RECOVERY_PROGRESS_CQL } from './tables/recovery-progress-table';
import { RECOVERY_CQL, recoveryBucketOf } from './tables/recovery-table';
import { SEQUENCE_CQL } from './tables/sequence-table';
import { GATE_AUX_TTL_MS, GATE_CASE_TIMEOUT_MS, GATE_CLAIM_LEASE_MS, GATE_SETUP_TIMEOUT_MS, MessageGate } from '../testing/message-gate';
import { sequentialRoundTrips } from '../testing/statement-recorder';
import type { ScyllaMessageStore } from './scylla-message-store';

/**
 * Scylla gate, message store specifics beyond the shared contract: racing reserves from separate
 * store instances (separate "processes") spending one seq per commit, grouped seq allocation,
 * crashes injected between every durable step followed by the recovery scan and a claim takeover,
 * the consistency every statement really ran with, and the u64 bit-63 rule.
 */
jest.setTimeout(GATE_CASE_TIMEOUT_MS);

let gate: MessageGate;
beforeAll(async () => {
  gate = await MessageGate.open('gate');
}, GATE_SETUP_TIMEOUT_MS);
afterAll(async () => {
  await gate?.drop();
}, GATE_SETUP_TIMEOUT_MS);
beforeEach(() => gate.clearRecoveryWindow());

const id = (): Id128 => randomBytes(16).toString('hex') as Id128;
const request = (tenantId: Id128, conversationId: Id128, body = 'hello'): SendRequest => ({
  tenantId,
  senderId: id(),
  clientMessageId: id(),
  conversationId,
  kind: 'normal',
  control: false,
  contentType: 'text/plain',
  body: Buffer.from(body),
  retention: { kind: 'default' },
});
const input = (r: SendRequest, createdAt = BigInt(Date.now())): ReserveInput => ({ request: r, messageId: id(), createdAt, recipients: [r.senderId] });
const publisher = (): OutboxPublisher & { count: number } => {
  const p = { count: 0, publish: async () => ({ topic: 'qim.messages', partition: 0, offset: BigInt(p.count++) }) };
  return p;
};

const ascending = (xs: readonly bigint[]): bigint[] => [...xs].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
const oneTo = (n: number): bigint[] => Array.from({ length: n }, (_, k) => BigInt(k + 1));

describe('racing reserves (separate store instances): one seq per commit, no hole without a crash', () => {
  it('two concurrent reserves of one key: one intent wins, the other returns it; one seq spent; a different request under the key conflicts', async () => {
    const a = gate.store();
    const b = await gate.separateStore();
    const c = gate.store();
    try {
      const tenant = id();
      const conv = id();
      const req = request(tenant, conv);
      const [x, y] = await Promise.all([a.reserve(input(req)), b.reserve(input(req))]);
      expect([x.created, y.created].sort()).toEqual([false, true]);
      expect(x.snapshot).toEqual(y.snapshot);
      expect(x.snapshot.intent.seq).toBe(1n);
      await expect(c.reserve(input({ ...req, body: Buffer.from('other') }))).rejects.toBeInstanceOf(ConflictError);
      const next = await c.reserve(input(request(tenant, conv)));
      expect(next.snapshot.intent.seq).toBe(2n);
    } finally {
      await b.close();
    }
  });

  it('64 concurrent reserves in one conversation from 4 instances: the seqs 1 … 64, a hole only where a CAS outcome was unknown', async () => {
    const stores = [gate.store(), gate.store(), gate.store(), gate.store()];
    const tenant = id();
    const conv = id();
    const results = await Promise.all(Array.from({ length: 64 }, (_, k) => stores[k % 4]!.reserve(input(request(tenant, conv)))));
    expect(results.every((r) => r.created)).toBe(true);
    // A CAS that timed out (a loaded machine's Cassandra) may have issued seqs nobody uses: legal
    // holes, never reused (docs: "Holes in seq are legal"). Without one, exactly 1 … 64.
    const inDoubt = stores.reduce((n, s) => n + s.seqGroups.inDoubt, 0);
    const seqs = ascending(results.map((r) => r.snapshot.intent.seq));
    expect(new Set(seqs).size).toBe(64);
    if (inDoubt === 0) expect(seqs).toEqual(oneTo(64));
    else expect(seqs[63]! - 64n).toBeLessThanOrEqual(BigInt(inDoubt));
    const after = await stores[0]!.reserve(input(request(tenant, conv)));
    const inDoubtAfter = stores.reduce((n, s) => n + s.seqGroups.inDoubt, 0);
    if (inDoubtAfter === 0) expect(after.snapshot.intent.seq).toBe(65n);
    else expect(after.snapshot.intent.seq).toBeGreaterThan(seqs[63]!);
  });

  it('grouped allocation: 64 concurrent reserves of one conversation in one store share a few CAS rounds (k seqs per round, none leased ahead)', async () => {
    const store = gate.store();
    const tenant = id();
    const conv = id();
    const results = await Promise.all(Array.from({ length: 64 }, () => store.reserve(input(request(tenant, conv)))));
    const { seqs, rounds, inDoubt } = store.seqGroups;
    const got = ascending(results.map((r) => r.snapshot.intent.seq));
    // Holes only where a CAS outcome was unknown (a timeout on a loaded machine); without one, exactly 1 … 64.
    expect(inDoubt === 0 ? got : got.length).toEqual(inDoubt === 0 ? oneTo(64) : 64);
    expect(seqs).toBe(64);
    expect(rounds).toBeLessThan(16);
    expect(store.seqLwtRounds).toBeLessThan(32);
    const row = (await gate.exec('SELECT next FROM {ks}.conversation_sequence WHERE tenant_id = ? AND conversation_id = ?', [
      id128ToBytes(tenant),
      id128ToBytes(conv),
    ])) as types.ResultSet;
    expect(row.rows[0]?.['next']).toBe(got[63]);
  });

  it('64 concurrent identical reserves from 4 instances: one commit, one seq, every caller the same intent', async () => {
    const stores = [gate.store(), gate.store(), gate.store(), gate.store()];
    const tenant = id();
    const conv = id();
    const req = request(tenant, conv);
    const results = await Promise.all(Array.from({ length: 64 }, (_, k) => stores[k % 4]!.reserve(input(req))));
    expect(results.filter((r) => r.created)).toHaveLength(1);
    for (const r of results) expect(r.snapshot).toEqual(results[0]!.snapshot);
    expect(results[0]!.snapshot.intent.seq).toBe(1n);
    expect((await stores[1]!.reserve(input(request(tenant, conv)))).snapshot.intent.seq).toBe(2n);
  });
});

describe('crash injection between every durable step, then the recovery scan', () => {
  const crashAt = (point: ScyllaMessageFaultPoint) => ({
    at: (p: ScyllaMessageFaultPoint) => {
      if (p === point) throw new Error(`injected crash at ${p}`);
    },
  });

  const reservePoints = new Set<ScyllaMessageFaultPoint>([
    'reserve:claim-answered',
    'reserve:after-claim',
    'reserve:after-entry',
    'reserve:after-entry-and-seq',
  ]);

  it.each(SCYLLA_MESSAGE_FAULT_POINTS.map((p) => [p]))(
    'crash at %s: the scan recovers the commit or safely passes it; a retry takes a dead claim over',
    async (point) => {
      const tenant = id();
      const conv = id();
      const req = request(tenant, conv);
      const created = BigInt(Date.now()) - 60_000n;
      // Commit facts live 20 s here, not the gate's 3 s: a retry waits out the dead claim's lease first,
      // and on a loaded machine lease + retry could outlast a 3 s lifetime fixed at the dead claim's birth.
      const lifetime = { commitAuxTtlMs: 20_000n };
      const dying = gate.store(lifetime, crashAt(point));
      const healthy = gate.store(lifetime);
      const committer = new DurableMessageCommitter(healthy, publisher());

      // The dead claim's lease starts when the dying reserve writes it: no earlier than this.
      const startedAt = Date.now();
      const crashed = point.startsWith('reserve')
        ? dying.reserve(input(req, created))
        : point.startsWith('put-record')
          ? healthy.reserve(input(req, created)).then((r) => dying.putRecord(r.snapshot.intent, recordFromIntent(r.snapshot.intent)))
          : healthy.reserve(input(req, created)).then(async (r) => {
              await healthy.putRecord(r.snapshot.intent, recordFromIntent(r.snapshot.intent));
              return dying.markPublishedAndCommitted(r.snapshot.intent, { topic: 'qim.messages', partition: 0, offset: 7n });
            });
      await expect(crashed).rejects.toThrow(`injected crash at ${point}`);

      const found = (await healthy.scanRecoverableCommits(BigInt(Date.now()) - 30_000n, 100)).filter((s) => s.intent.key.tenantId === tenant);
      if (reservePoints.has(point)) {
        // only a claim exists (no commit): nothing to recover; the client's retry takes the dead claim over after the lease
        expect(found).toEqual([]);
        expect(await healthy.loadCommitForRequest(req)).toBeNull();
        const retry = await committer.send(input(req, created));
        expect(retry.replay).toBe(false);
        // not before the dead claimant's lease ran out (counted from before the claim was written: the
        // claim's own round trip may end well after its lease started, so not from the crash)
        expect(Date.now() - startedAt).toBeGreaterThanOrEqual(Number(GATE_CLAIM_LEASE_MS) - 100);
        // the dead claimant's seq is a hole only when it got that far
        // (after the entry alone, the concurrent seq allocation may or may not have completed)
        if (point === 'reserve:after-entry') expect([1n, 2n]).toContain(retry.seq);
        else expect(retry.seq).toBe(point === 'reserve:after-entry-and-seq' ? 2n : 1n);
      } else if (point === 'mark-committed:after-state') {
        // COMMITTED, only the recovery entry was not marked done: the scan reads the commit and passes it
        expect(found).toEqual([]);
      } else {
        expect(found).toHaveLength(1);
        expect(found[0]!.state).toBe('RESERVED');
        expect((await committer.resume(found[0]!)).state).toBe('COMMITTED');
      }
      const done = await healthy.loadCommitForRequest(req);
      expect(done?.state).toBe('COMMITTED');
      const page = await healthy.historyPage({ canReadHistory: async () => true }, { tenantId: tenant, userId: req.senderId }, conv, {
        direction: 'newer',
        anchor: null,
        maxItems: 10,
        maxBytes: 1 << 20,
      });
      expect(page.items.map((i) => i.record.messageId)).toEqual([done!.intent.messageId]);
      expect((await healthy.scanRecoverableCommits(BigInt(Date.now()), 100)).filter((s) => s.intent.key.tenantId === tenant)).toEqual([]);
    },
  );

  it('a reserve failing with a store error abandons its claim: a retry proceeds at once, without waiting out the lease', async () => {
    const tenant = id();
    const conv = id();
    await gate.exec('INSERT INTO {ks}.conversation_sequence (tenant_id, conversation_id, next) VALUES (?, ?, ?)', [
      id128ToBytes(tenant),
      id128ToBytes(conv),
      (1n << 63n) - 1n,
    ]);
    const req = request(tenant, conv);
    const store = gate.store({ claimLeaseMs: 60_000n });
    await expect(store.reserve(input(req))).rejects.toBeInstanceOf(InvariantViolationError);
    await gate.exec('UPDATE {ks}.conversation_sequence SET next = ? WHERE tenant_id = ? AND conversation_id = ?', [
      10n,
      id128ToBytes(tenant),
      id128ToBytes(conv),
    ]);
    const started = Date.now();
    const retry = await gate.store({ claimLeaseMs: 60_000n }).reserve(input(req));
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(retry).toMatchObject({ created: true, snapshot: { state: 'RESERVED', intent: { seq: 11n } } });
  });

  // A node killed mid-LWT leaves answers lost and LWTs timing out for as long as the others still
  // count it alive (~20 s here). A claim left behind by such a failure must not make every retry
  // wait out the lease (the node-down drill's 15 s sends and its 2 failed ones).
  const failing = (point: ScyllaMessageFaultPoint, times: number): ScyllaMessageFaults & { hits: number } => {
    const f = {
      hits: 0,
      at: (p: ScyllaMessageFaultPoint) => {
        if (p !== point || f.hits >= times) return;
        f.hits += 1;
        throw new UnavailableError(`injected: cluster unavailable at ${p}`);
      },
    };
    return f;
  };

  it.each([['reserve:claim-answered'], ['reserve:after-claim']] as const)(
    'a claim whose answer was lost (the claim landed, the reserve saw UnavailableError at %s) is released: a retry proceeds without waiting out the lease',
    async (point) => {
      const req = request(id(), id());
      // the gate's commit facts live 3 s: here they must outlive the lease, or the claim would just expire
      const lease = { claimLeaseMs: 60_000n, commitAuxTtlMs: 120_000n };
      await expect(gate.store(lease, failing(point, 1)).reserve(input(req))).rejects.toBeInstanceOf(UnavailableError);
      const started = Date.now();
      const retry = await gate.store(lease).reserve(input(req));
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(retry).toMatchObject({ created: true, snapshot: { state: 'RESERVED', intent: { seq: 1n } } });
    },
  );

  it('a release that fails while the cluster is unavailable is retried in the background until it lands; a retry of the send then proceeds', async () => {
    const req = request(id(), id());
    // the gate's commit facts live 3 s: here they must outlive the lease, or the claim would just expire
    const lease = { claimLeaseMs: 60_000n, commitAuxTtlMs: 120_000n };
    const faults = failing('reserve:release-claim', 3);
    await expect(
      gate.store(lease, { at: (p) => (p === 'reserve:after-entry' ? Promise.reject(new UnavailableError('injected')) : faults.at(p)) }).reserve(input(req)),
    ).rejects.toBeInstanceOf(UnavailableError);
    const started = Date.now();
    const retry = await gate.store(lease).reserve(input(req));
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(faults.hits).toBe(3);
    // the seq the failed reserve may have spent is a hole; the retry's is the next one
    expect([1n, 2n]).toContain(retry.snapshot.intent.seq);
    expect(retry).toMatchObject({ created: true, snapshot: { state: 'RESERVED' } });
  });

  it('a reserve crashing after its claim (no answer, no release) still leaves the claim to the lease: nothing is released on a crash', async () => {
    const req = request(id(), id());
    const crash = {
      at: (p: ScyllaMessageFaultPoint) => {
        if (p === 'reserve:after-claim') throw new Error('injected crash');
      },
    };
    const releases = failing('reserve:release-claim', 0);
    const lease = { claimLeaseMs: 3_000n, commitAuxTtlMs: 120_000n };
    const store = gate.store(lease, {
      at: (p) => {
        releases.at(p);
        crash.at(p);
      },
    });
    await expect(store.reserve(input(req))).rejects.toThrow('injected crash');
    const started = Date.now();
    await gate.store(lease).reserve(input(req));
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_900);
  });
});

describe('statements: prepared, named profiles, LOCAL_QUORUM, LWTs also LOCAL_SERIAL', () => {
  const all = [COMMIT_CQL, SEQUENCE_CQL, RECORD_CQL, HISTORY_INDEX_CQL, RECOVERY_CQL, RECOVERY_PROGRESS_CQL].flatMap((t) =>
    Object.entries(t).map(([key, s]) => ({ key, ...s })),
  );

  it('every statement is declared once under a unique `table.action` name (what the statement counter reports)', () => {
    expect(all.length).toBeGreaterThan(15);
    expect(new Set(all.map((s) => s.name)).size).toBe(all.length);
    for (const s of all) expect(s.name).toMatch(new RegExp(`^[a-z_]+\\.${s.key}$`));
  });

  it('every declared statement: conditional ⇔ lwt profile; LWTs are not idempotent, everything else is', () => {
    for (const s of all) {
      const name = s.name;
      const conditional = /\sIF\s/.test(s.cql);
      expect([name, s.profile === 'lwt']).toEqual([name, conditional]);
      expect([name, s.idempotent]).toEqual([name, !conditional]);
    }
  });

  it('what the driver really executed during a full commit, history page, summary and scan', async () => {
    const store = gate.store();
    const tenant = id();
    const conv = id();
    gate.recorder.statements.length = 0;
    gate.recorder.recording = true;
    try {
      await new DurableMessageCommitter(store, publisher()).send(input(request(tenant, conv)));
      await store.historyPage({ canReadHistory: async () => true }, { tenantId: tenant, userId: id() }, conv, {
        direction: 'older',
        anchor: null,
        maxItems: 5,
        maxBytes: 1000,
      });
      await store.conversationSummaries({ tenantId: tenant, userId: id() }, [{ conversationId: conv, readSeq: 0n }]);
      await store.scanRecoverableCommits(BigInt(Date.now()), 10);
    } finally {
      gate.recorder.recording = false;
    }
    const ran = gate.recorder.statements.filter((s) => s.cql.includes(gate.config.keyspace));
    expect(ran.length).toBeGreaterThan(10);
    const { localQuorum, localSerial } = types.consistencies;
    for (const s of ran) {
      expect({ cql: s.cql, prepared: s.prepared, consistency: s.consistency, ok: s.ok }).toEqual({
        cql: s.cql,
        prepared: true,
        consistency: localQuorum,
        ok: true,
      });
      if (/\sIF\s/.test(s.cql))
        expect({ cql: s.cql, serial: s.serialConsistency, idempotent: s.idempotent }).toEqual({ cql: s.cql, serial: localSerial, idempotent: false });
      else expect({ cql: s.cql, idempotent: s.idempotent }).toEqual({ cql: s.cql, idempotent: true });
    }
    // LWTs of one commit in a fresh conversation: claim, seq init, completion, RECORDED → COMMITTED
    // (putRecord's RECORDED is a plain write of the record mark, `commit.record`)
    expect(ran.filter((s) => /\sIF\s/.test(s.cql))).toHaveLength(4);
    // The store's runner counted the same requests, by step name, LWTs apart.
    expect(store.statements.count()).toBe(ran.length);
    expect(store.statements.lwtCount()).toBe(4);
    expect(store.seqLwtRounds).toBe(1);
    const lwts = Object.fromEntries(
      store.statements
        .snapshot()
        .filter((c) => c.lwt)
        .map((c) => [c.name, c.count]),
    );
    expect(lwts).toEqual({ 'commit.claim': 1, 'commit.commit': 1, 'commit.complete': 1, 'sequence.init': 1 });
    expect(store.statements.snapshot().find((c) => c.name === 'commit.record')).toEqual({ name: 'commit.record', lwt: false, count: 1 });
  });
});

describe('round trips a commit waits on, one after another (issue 31)', () => {
  /** One commit through the committer, alone on the store; the round trips it waited on before its answer. */
  async function measuredCommit(
    store: ScyllaMessageStore,
    committer: DurableMessageCommitter,
    r: SendRequest,
  ): Promise<{ driver: number; store: number; requests: number }> {
    // nothing of an earlier commit still in flight (its recovery done mark is sent after its answer)
    while (store.statements.requestsInFlight > 0) await new Promise((resolve) => setTimeout(resolve, 5));
    gate.recorder.statements.length = 0;
    store.statements.reset();
    gate.recorder.recording = true;
    try {
      await committer.send(input(r));
      // read before any later answer can arrive: the done mark sent after COMMITTED is not on the answer's path
      const ran = gate.recorder.statements.filter((s) => s.cql.includes(gate.config.keyspace));
      return { driver: sequentialRoundTrips(ran), store: store.statements.sequentialRounds, requests: ran.length };
    } finally {
      gate.recorder.recording = false;
    }
  }

  it(
    'hot conversation: 7 (claim; recovery entry ∥ seq CAS; completion ∥ seq-free read; record; index; record mark; COMMITTED), ' +
      'fresh conversation: 8 (the seq is read first)',
    async () => {
      const store = gate.store();
      const committer = new DurableMessageCommitter(store, publisher());
      const tenant = id();
      // prepares every statement of the path
      await committer.send(input(request(tenant, id())));

      const fresh = await measuredCommit(store, committer, request(tenant, id()));
      expect(fresh).toEqual({ driver: 8, store: 8, requests: 10 });
      const hot = id();
      await committer.send(input(request(tenant, hot)));
      // the conversation's seq is known to the store now: one CAS, no read
      expect(await measuredCommit(store, committer, request(tenant, hot))).toEqual({ driver: 7, store: 7, requests: 9 });
      const names = store.statements.snapshot().map((c) => `${c.name}×${c.count}`);
      expect(names).toEqual(expect.arrayContaining(['record.selectMany×1', 'commit.record×1', 'sequence.step×1']));
      expect(names.filter((n) => n.startsWith('sequence.select'))).toEqual([]);
    },
  );

  it(
    "the seq-free check read with the completion stands in for putRecord's own only for a commit this store completed: " +
      'another store reads before its record write',
    async () => {
      const tenant = id();
      const conv = id();
      const { snapshot } = await gate.store().reserve(input(request(tenant, conv)));
      const other = gate.store();
      other.statements.reset();
      expect(await other.putRecord(snapshot.intent, recordFromIntent(snapshot.intent))).toEqual({ intent: snapshot.intent, state: 'RECORDED' });
      expect(other.statements.count('record.selectMany')).toBe(1);
    },
  );
});

describe('the record mark (RECORDED without an LWT)', () => {
  const keyOf = (r: SendRequest) => [id128ToBytes(r.tenantId), id128ToBytes(r.senderId), id128ToBytes(r.clientMessageId)];
  const WHERE = 'WHERE tenant_id = ? AND sender_id = ? AND client_message_id = ?';

  it('a late mark of an earlier incarnation (another token, an older timestamp) neither records a commit nor undoes its mark', async () => {
    const store = gate.store();
    const req = request(id(), id());
    const { snapshot } = await store.reserve(input(req));
    const key = keyOf(req);
    const born = ((await gate.exec(`SELECT WRITETIME(identity) AS born FROM {ks}.message_commit ${WHERE}`, key)) as types.ResultSet).rows[0]?.[
      'born'
    ] as bigint;
    const stale = `UPDATE {ks}.message_commit USING TIMESTAMP ? SET recorded = ? ${WHERE}`;
    await gate.exec(stale, [born - 10_000_000n, randomBytes(16), ...key]);
    expect((await gate.store().loadCommit(snapshot.intent.key))?.state).toBe('RESERVED');
    expect((await store.putRecord(snapshot.intent, recordFromIntent(snapshot.intent))).state).toBe('RECORDED');
    // the mark carries the incarnation's birth (the claimant's clock just before its claim), not the time it was written
    const marked = ((await gate.exec(`SELECT WRITETIME(recorded) AS at FROM {ks}.message_commit ${WHERE}`, key)) as types.ResultSet).rows[0]?.['at'] as bigint;
    expect(marked <= born && marked > born - 5_000_000n).toBe(true);
    await gate.exec(stale, [born - 10_000_000n, randomBytes(16), ...key]);
    // another process (no cached copy) reads the mark and moves on from the RESERVED state cell
    const other = gate.store();
    expect((await other.loadCommit(snapshot.intent.key))?.state).toBe('RECORDED');
    expect((await other.markPublishedAndCommitted(snapshot.intent, { topic: 't', partition: 0, offset: 1n })).state).toBe('COMMITTED');
    // the first store's cached RECORDED loses its condition, re-reads and answers the first publication
    expect((await store.markPublishedAndCommitted(snapshot.intent, { topic: 't', partition: 0, offset: 2n })).intent.publication?.offset).toBe(1n);
  });

  it('a commit recorded by an older writer (state cell RECORDED) is still read as RECORDED and moved on', async () => {
    const store = gate.store();
    const req = request(id(), id());
    const { snapshot } = await store.reserve(input(req));
    await gate.exec(`UPDATE {ks}.message_commit SET state = 'RECORDED' ${WHERE}`, keyOf(req));
    const fresh = gate.store();
    expect((await fresh.loadCommit(snapshot.intent.key))?.state).toBe('RECORDED');
    expect((await fresh.putRecord(snapshot.intent, recordFromIntent(snapshot.intent))).state).toBe('RECORDED');
    expect((await fresh.markOutboxPublished(snapshot.intent.key, snapshot.intent.messageId, { topic: 't', partition: 0, offset: 1n })).state).toBe('OUTBOXED');
    expect((await fresh.markCommitted(snapshot.intent.key)).state).toBe('COMMITTED');
  });
});

describe('auxiliary facts expire whole (no ghost row from the TTL-carrying state moves)', () => {
  it('after the aux TTL a fully moved commit row and its recovery entry are gone entirely, not just their cells', async () => {
    const store = gate.store();
    const req = request(id(), id());
    await new DurableMessageCommitter(store, publisher()).send(input(req));
    const key = [id128ToBytes(req.tenantId), id128ToBytes(req.senderId), id128ToBytes(req.clientMessageId)];
    const commitRows = async () =>
      (await gate.exec('SELECT * FROM {ks}.message_commit WHERE tenant_id = ? AND sender_id = ? AND client_message_id = ?', key)) as types.ResultSet;
    const position = (await commitRows()).rows[0]?.['recovery_at'] as bigint;
    const rows = async () => {
      const recovery = (await gate.exec('SELECT * FROM {ks}.commit_recovery_v2 WHERE hour_bucket = ? AND position = ?', [
        recoveryBucketOf(position),
        position,
      ])) as types.ResultSet;
      const mine = recovery.rows.filter((r) => Buffer.from(r['client_message_id'] as Buffer).equals(key[2]!));
      return { commit: (await commitRows()).rows.length, recovery: mine.length, done: mine.every((r) => r['done'] === true) };
    };
    // the done mark is written after the COMMITTED move returns (not on the ACK path)
    for (let i = 0; i < 40 && !(await rows()).done; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await rows()).toEqual({ commit: 1, recovery: 1, done: true });
    await new Promise((resolve) => setTimeout(resolve, Number(GATE_AUX_TTL_MS) + 2_100));
    expect(await rows()).toEqual({ commit: 0, recovery: 0, done: true });
  });
});

describe('u64 bit 63', () => {
  it('a createdAt with bit 63 set is refused before anything is written', async () => {
    const store = gate.store();
    const req = request(id(), id());
    await expect(store.reserve(input(req, 1n << 63n))).rejects.toBeInstanceOf(InvalidInputError);
    expect(await store.loadCommitForRequest(req)).toBeNull();
  });

  it('a seq that would need bit 63 is an InvariantViolation and no commit is written', async () => {
    const store = gate.store();
    const tenant = id();
    const conv = id();
    await gate.exec('INSERT INTO {ks}.conversation_sequence (tenant_id, conversation_id, next) VALUES (?, ?, ?)', [
      id128ToBytes(tenant),
      id128ToBytes(conv),
      (1n << 63n) - 1n,
    ]);
    const req = request(tenant, conv);
    await expect(store.reserve(input(req))).rejects.toBeInstanceOf(InvariantViolationError);
    expect(await store.loadCommitForRequest(req)).toBeNull();
  });
});
