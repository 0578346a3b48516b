/**
 * The highest frontier this store knows to be stored: one it read, or one it wrote and had
 * acknowledged. The frontier never moves backwards, and every dispatch-index sight of a record at or
 * below a stored frontier was acknowledged before that frontier was written (ADR-0022 §2), so an
 * index read sent after the store learnt `value` sees every such sight — whatever the frontier read
 * that runs beside it returns, as long as that is not higher.
 */
export class KnownFrontier {
  private known: bigint | null = null;

  get value(): bigint | null {
    return this.known;
  }

  /** Learns a stored frontier (null: nothing stored yet, nothing learnt). */
  raise(frontier: bigint | null): void {
    if (frontier !== null && (this.known === null || frontier > this.known)) this.known = frontier;
  }
}

/**
 * Whether a dispatch-index read sent when `known` was the highest stored frontier the store knew saw
 * every sight at or below `read`, the frontier read beside it: yes unless `read` is higher (a sight
 * between the two may have landed after the index read) — then the index is read again.
 */
export function indexReadCovers(known: bigint | null, read: bigint | null): boolean {
  return read === null || (known !== null && read <= known);
}
