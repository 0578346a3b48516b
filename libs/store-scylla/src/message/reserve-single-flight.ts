import { assertSameRequest, commitKeyOf, commitKeyString, requestIdentity, validateReserveInput } from '@qim/store-core';
import type { ReserveInput, ReserveResult } from '@qim/store-core';

/**
 * In-process single flight for `reserve`: concurrent calls for one commit key share the leader's
 * round trips. A joiner gets the leader's snapshot as a replay (`created: false`) after the same
 * identity check a stored commit gets (another request → `ConflictError`), so exactly one caller
 * sees `created: true`. When the leader fails, each joiner runs on its own (joining a new leader).
 */
export class ReserveSingleFlight {
  private readonly flights = new Map<string, Promise<ReserveResult>>();

  constructor(private readonly reserve: (input: ReserveInput) => Promise<ReserveResult>) {}

  run(raw: ReserveInput): Promise<ReserveResult> {
    let id: string;
    try {
      id = commitKeyString(commitKeyOf(validateReserveInput(raw).request));
    } catch (err) {
      return Promise.reject(err);
    }
    const leader = this.flights.get(id);
    if (leader !== undefined) return leader.then((r) => this.join(r, raw), () => this.run(raw));
    const flight = this.reserve(raw).finally(() => {
      if (this.flights.get(id) === flight) this.flights.delete(id);
    });
    this.flights.set(id, flight);
    return flight;
  }

  private join(leader: ReserveResult, raw: ReserveInput): ReserveResult {
    assertSameRequest('reserve', leader.snapshot.intent.identity, requestIdentity(validateReserveInput(raw).request));
    return { snapshot: leader.snapshot, created: false };
  }
}
