import { assertSameRequest, commitKeyOf, commitKeyString, requestIdentity, validateReserveInput } from '@qim/store-core';
import type { ReserveInput, ReserveResult, ValidReserveInput } from '@qim/store-core';

/**
 * In-process single flight for `reserve`: concurrent calls for one commit key share the leader's
 * round trips. A joiner gets the leader's snapshot as a replay (`created: false`) after the same
 * identity check a stored commit gets (another request → `ConflictError`), so exactly one caller
 * sees `created: true`. When the leader fails, each joiner runs on its own (joining a new leader).
 * The input is validated here, once per call, and the validated value is what `reserve` gets.
 */
export class ReserveSingleFlight {
  private readonly flights = new Map<string, Promise<ReserveResult>>();

  constructor(private readonly reserve: (input: ValidReserveInput) => Promise<ReserveResult>) {}

  run(raw: ReserveInput): Promise<ReserveResult> {
    let input: ValidReserveInput;
    let id: string;
    try {
      input = validateReserveInput(raw);
      id = commitKeyString(commitKeyOf(input.request));
    } catch (err) {
      return Promise.reject(err);
    }
    const leader = this.flights.get(id);
    if (leader !== undefined)
      return leader.then(
        (r) => this.join(r, input),
        () => this.run(input),
      );
    const flight = this.reserve(input).finally(() => {
      if (this.flights.get(id) === flight) this.flights.delete(id);
    });
    this.flights.set(id, flight);
    return flight;
  }

  private join(leader: ReserveResult, input: ValidReserveInput): ReserveResult {
    assertSameRequest('reserve', leader.snapshot.intent.identity, requestIdentity(input.request));
    return { snapshot: leader.snapshot, created: false };
  }
}
