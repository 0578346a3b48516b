import { FanoutLimitError, UnavailableError } from '@qim/store-core';
import type { CommitKey, Id128, MembershipDirectory, RecoveryClaims, WriterLeaseStore } from '@qim/store-core';
import { expectStoreError } from './support/expect-error';
import { randomId, randomIds } from './support/ids';

/**
 * What a backend gives the writer-coordination contract: membership, writer-id leases and recovery
 * claims over one fresh storage (no other case's leases), on real time (lease and claim lifetimes
 * are short in the expiry cases).
 */
export interface CoordinationHarness {
  readonly membership: MembershipDirectory;
  readonly leases: WriterLeaseStore;
  /** The recovery claims of writer `owner`; every owner's claims share one storage. */
  claimsOf(owner: string): RecoveryClaims;
  close(): Promise<void>;
}

const HOOK_TIMEOUT_MS = 30_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Ascending, as the directory lists members (lowercase hex: string order is id order). */
const sorted = (ids: readonly Id128[]): Id128[] => [...ids].sort();

/** The one behaviour every backend's membership, leases and claims must show. */
export function describeCoordinationContract(backend: string, open: () => Promise<CoordinationHarness>): void {
  describe(`writer coordination contract: ${backend}`, () => {
    let h: CoordinationHarness;
    beforeEach(async () => {
      h = await open();
    }, HOOK_TIMEOUT_MS);
    afterEach(async () => {
      await h.close();
    }, HOOK_TIMEOUT_MS);

    describe('membership', () => {
      it('adds (a repeated user counts once), lists ascending, counts, checks and removes', async () => {
        const [t, c] = randomIds(2);
        const users = sorted(randomIds(3));
        const [u1, u2, u3] = [users[0]!, users[1]!, users[2]!];
        expect(await h.membership.add(t!, c!, [u3, u1, u3], 2)).toBe(2);
        expect(await h.membership.members(t!, c!)).toEqual([u1, u3]);
        expect(await h.membership.add(t!, c!, [u2], 3)).toBe(3);
        expect(await h.membership.members(t!, c!)).toEqual([u1, u2, u3]);
        expect(await h.membership.count(t!, c!)).toBe(3);
        expect([await h.membership.isMember(t!, c!, u2), await h.membership.isMember(t!, c!, randomId())]).toEqual([true, false]);
        expect(await h.membership.remove(t!, c!, [u2, randomId()])).toBe(2);
        expect(await h.membership.members(t!, c!)).toEqual([u1, u3]);
        expect(await h.membership.count(t!, c!)).toBe(2);
      });

      it('refuses to grow past the cap with FanoutLimitError and adds nothing; up to the cap is fine', async () => {
        const [t, c] = randomIds(2);
        const [a, b, x, y] = randomIds(4);
        await h.membership.add(t!, c!, [a!, b!], 3);
        await expectStoreError(h.membership.add(t!, c!, [x!, y!], 3), FanoutLimitError);
        expect(await h.membership.members(t!, c!)).toEqual(sorted([a!, b!]));
        expect(await h.membership.add(t!, c!, [b!, x!], 3)).toBe(3);
      });

      it('an unknown conversation has no members; a tenant sees only its own conversation', async () => {
        const [t, other, c, u] = randomIds(4);
        expect(await h.membership.members(t!, c!)).toEqual([]);
        expect(await h.membership.count(t!, c!)).toBe(0);
        expect(await h.membership.remove(t!, c!, [u!])).toBe(0);
        await h.membership.add(t!, c!, [u!], 10);
        expect(await h.membership.members(other!, c!)).toEqual([]);
        expect(await h.membership.isMember(other!, c!, u!)).toBe(false);
        expect(await h.membership.count(other!, c!)).toBe(0);
      });
    });

    describe('writer-id leases', () => {
      it('gives each holder its own id and refuses with UnavailableError when every id is held', async () => {
        const a = await h.leases.acquire(2, 60_000, 'a');
        const b = await h.leases.acquire(2, 60_000, 'b');
        expect([a, b]).toEqual([
          { writerId: 0, token: 'a', hlcFloor: 0n },
          { writerId: 1, token: 'b', hlcFloor: 0n },
        ]);
        await expectStoreError(h.leases.acquire(2, 60_000, 'c'), UnavailableError);
      });

      it('renews only with the holder token; the floor only rises and passes to the next holder', async () => {
        const grant = await h.leases.acquire(1, 60_000, 'mine');
        expect(await h.leases.renew(grant, 60_000, 99n)).toBe(true);
        expect(await h.leases.renew({ ...grant, token: 'theirs' }, 60_000, 500n)).toBe(false);
        await h.leases.release({ ...grant, token: 'theirs' }, 7n);
        await expectStoreError(h.leases.acquire(1, 60_000, 'next'), UnavailableError);
        await h.leases.release(grant, 50n);
        expect(await h.leases.acquire(1, 60_000, 'next')).toEqual({ writerId: 0, token: 'next', hlcFloor: 99n });
      });

      it('reacquire: null while another token holds the id; after it left, the id is ours again with its raised floor', async () => {
        const mine = await h.leases.acquire(1, 60_000, 'mine');
        await h.leases.release(mine, 10n);
        const theirs = await h.leases.acquire(1, 60_000, 'theirs');
        expect(await h.leases.reacquire(mine, 60_000)).toBeNull();
        await h.leases.release(theirs, 12_345_678_901_234n);
        expect(await h.leases.reacquire(mine, 60_000)).toBe(12_345_678_901_234n);
        expect(await h.leases.reacquire(mine, 60_000)).toBe(12_345_678_901_234n);
        await expectStoreError(h.leases.acquire(1, 60_000, 'third'), UnavailableError);
        expect(await h.leases.renew(mine, 60_000, 12_345_678_901_235n)).toBe(true);
      });

      it('a lease that was not renewed within its lifetime frees the id', async () => {
        await h.leases.acquire(1, 200, 'stalled');
        await sleep(700);
        expect(await h.leases.acquire(1, 60_000, 'next')).toMatchObject({ writerId: 0, token: 'next' });
      });
    });

    describe('recovery claims', () => {
      const key = (): CommitKey => ({ tenantId: randomId(), senderId: randomId(), clientMessageId: randomId() });

      it('one owner at a time; the holder may claim again', async () => {
        const [a, b] = [h.claimsOf('writer-a'), h.claimsOf('writer-b')];
        const k = key();
        expect(await a.claim(k, 60_000)).toBe(true);
        expect(await b.claim(k, 60_000)).toBe(false);
        expect(await a.claim(k, 60_000)).toBe(true);
        expect(await b.claim(key(), 60_000)).toBe(true);
      });

      it('another owner takes over once the claim expired', async () => {
        const [a, b] = [h.claimsOf('writer-a'), h.claimsOf('writer-b')];
        const k = key();
        expect(await a.claim(k, 200)).toBe(true);
        await sleep(700);
        expect(await b.claim(k, 60_000)).toBe(true);
        expect(await a.claim(k, 60_000)).toBe(false);
      });
    });
  });
}
