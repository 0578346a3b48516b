import { HybridLogicalClock } from './hybrid-clock';
import { LeaseKeeper } from './lease-keeper';
import { MemoryLeaseStore } from '@qim/store-memory';
import { MessageIdSource } from './message-id-source';

describe('HybridLogicalClock', () => {
  it('strictly increases even when the wall clock goes back or stands still', () => {
    let wall = 1_000n;
    const hlc = new HybridLogicalClock(() => wall);
    const a = hlc.tick();
    const b = hlc.tick();
    wall = 500n;
    const c = hlc.tick();
    wall = 2_000n;
    const d = hlc.tick();
    expect([a.packed < b.packed, b.packed < c.packed, c.packed < d.packed]).toEqual([true, true, true]);
    expect(c.physicalMs).toBe(1_000n);
    expect(d).toMatchObject({ physicalMs: 2_000n, logical: 0 });
  });

  it('starts above the floor left by a previous holder', () => {
    const floor = (5_000n << 16n) | 7n;
    const t = new HybridLogicalClock(() => 1n, floor).tick();
    expect(t.packed).toBe(floor + 1n);
  });

  it('carries logical overflow into physical time', () => {
    const hlc = new HybridLogicalClock(() => 10n, (10n << 16n) | 0xffffn);
    expect(hlc.tick()).toMatchObject({ physicalMs: 11n, logical: 0 });
  });
});

describe('MessageIdSource', () => {
  it('packs HLC ‖ writer id ‖ incarnation and never repeats', () => {
    const src = new MessageIdSource(new HybridLogicalClock(() => 42n), 0x0102, Buffer.from('aabbccddeeff', 'hex'));
    const ids = Array.from({ length: 1000 }, () => src.next());
    expect(new Set(ids.map((i) => i.messageId)).size).toBe(1000);
    expect(ids[0]!.messageId).toMatch(/^[0-9a-f]{16}0102aabbccddeeff$/);
    expect(ids[0]!.createdAt).toBe(42n);
  });

  it('differs between writers at the same instant', () => {
    const a = new MessageIdSource(new HybridLogicalClock(() => 1n), 1).next();
    const b = new MessageIdSource(new HybridLogicalClock(() => 1n), 2).next();
    expect(a.messageId).not.toBe(b.messageId);
  });
});

describe('LeaseKeeper', () => {
  it('holds while renewals succeed and records the HLC floor for a successor', async () => {
    let now = 0;
    const store = new MemoryLeaseStore(() => now);
    const grant = await store.acquire(4, 1_000, 'tok');
    const keeper = new LeaseKeeper(store, grant, () => 99n, { ttlMs: 1_000, now: () => now });
    now = 500;
    await keeper.renewOnce();
    now = 1_000;
    expect(keeper.held()).toBe(true);
    await keeper.stop();
    const next = await store.acquire(4, 1_000, 'tok2');
    expect(next).toMatchObject({ writerId: 0, hlcFloor: 99n });
  });

  it('gives a second writer another id while the first holds one', async () => {
    const store = new MemoryLeaseStore();
    const a = await store.acquire(2, 10_000, 'a');
    const b = await store.acquire(2, 10_000, 'b');
    expect([a.writerId, b.writerId]).toEqual([0, 1]);
    await expect(store.acquire(2, 10_000, 'c')).rejects.toMatchObject({ code: 'UNAVAILABLE' });
  });

  it('is lost when another process took the id, and then refuses to issue ids', async () => {
    const now = 0;
    const store = new MemoryLeaseStore(() => now);
    const grant = await store.acquire(1, 1_000, 'mine');
    const lost: string[] = [];
    const keeper = new LeaseKeeper(store, grant, () => 1n, { ttlMs: 1_000, now: () => now, onLost: (r) => lost.push(r) });
    store.expire(0);
    await store.acquire(1, 1_000, 'theirs');
    await keeper.renewOnce();
    expect(keeper.held()).toBe(false);
    expect(lost).toHaveLength(1);
    expect(() => keeper.assertHeld()).toThrow(expect.objectContaining({ code: 'UNAVAILABLE' }));
    expect((await keeper.readiness().check()).ok).toBe(false);
  });

  it('is lost when renewals keep failing past the safe window', async () => {
    let now = 0;
    const store = new MemoryLeaseStore(() => now);
    const grant = await store.acquire(1, 900, 't');
    store.renew = async () => {
      throw new Error('redis down');
    };
    const keeper = new LeaseKeeper(store, grant, () => 1n, { ttlMs: 900, now: () => now });
    now = 300;
    await keeper.renewOnce();
    expect(keeper.held()).toBe(true);
    now = 600;
    expect(keeper.held()).toBe(false);
  });
});

describe('LeaseKeeper after a loss', () => {
  it('takes the id back once its store answers again: held and ready without any send', async () => {
    let now = 0;
    const store = new MemoryLeaseStore(() => now);
    const grant = await store.acquire(1, 900, 't');
    const [renew, reacquire] = [store.renew.bind(store), store.reacquire.bind(store)];
    store.renew = store.reacquire = async () => {
      throw new Error('redis down');
    };
    const events: string[] = [];
    const keeper = new LeaseKeeper(store, grant, () => 1n, {
      ttlMs: 900,
      reacquireMs: 10_000,
      now: () => now,
      onLost: () => events.push('lost'),
      onRegained: () => events.push('regained'),
      onTerminal: () => events.push('terminal'),
    });
    now = 700;
    await keeper.renewOnce();
    expect((await keeper.readiness().check()).ok).toBe(false);
    await keeper.renewOnce();
    expect(keeper.held()).toBe(false);
    [store.renew, store.reacquire] = [renew, reacquire];
    now = 1_000;
    await keeper.renewOnce();
    expect(events).toEqual(['lost', 'regained']);
    expect((await keeper.readiness().check()).ok).toBe(true);
    expect(() => keeper.assertHeld()).not.toThrow();
  });

  it('raises the HLC to the floor a holder in between recorded', async () => {
    let now = 0;
    const store = new MemoryLeaseStore(() => now);
    const grant = await store.acquire(1, 900, 'mine');
    const floors: bigint[] = [];
    const keeper = new LeaseKeeper(store, grant, () => 1n, { ttlMs: 900, now: () => now, observeFloor: (f) => floors.push(f) });
    store.steal(0, 'theirs', 300, 5_000n);
    await keeper.renewOnce();
    expect(keeper.held()).toBe(false);
    now = 400;
    await keeper.renewOnce();
    expect(keeper.held()).toBe(true);
    expect(floors).toEqual([5_000n]);
  });

  it('ends the process when the id cannot be taken back within the bound, with the reason', async () => {
    let now = 0;
    const store = new MemoryLeaseStore(() => now);
    const grant = await store.acquire(1, 900, 'mine');
    const terminal: string[] = [];
    const keeper = new LeaseKeeper(store, grant, () => 1n, { ttlMs: 900, reacquireMs: 2_000, now: () => now, onTerminal: (r) => terminal.push(r) });
    store.steal(0, 'theirs', 60_000);
    await keeper.renewOnce();
    for (now = 300; now < 2_000; now += 300) await keeper.renewOnce();
    expect(terminal).toEqual([]);
    now = 2_000;
    await keeper.renewOnce();
    await keeper.renewOnce();
    expect(terminal).toEqual(['writer lease lost and not re-acquired within 2000 ms: writer id 0 is held by another process']);
    expect(keeper.held()).toBe(false);
    expect((await keeper.readiness().check()).detail).toMatchObject({ terminal: terminal[0] });
  });
});
