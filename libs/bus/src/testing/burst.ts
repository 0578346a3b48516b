/** One acknowledged record as the producer reported it, with the bytes it was asked to write. */
export interface AckedRecord {
  readonly partition: number;
  readonly offset: bigint;
  readonly value: Buffer;
}

export interface BurstResult {
  readonly acked: AckedRecord[];
  /** Failed sends by error name (each one a send that the caller saw fail, so never acknowledged). */
  readonly failures: Map<string, number>;
  readonly sends: number;
}

/**
 * Runs `workers` concurrent senders, each sending again as soon as its previous send settled
 * (50 ms after a failure), until `during` (the fault script) resolves.
 */
export async function burst(workers: number, send: (n: number) => Promise<AckedRecord[]>, during: () => Promise<void>): Promise<BurstResult> {
  const acked: AckedRecord[] = [];
  const failures = new Map<string, number>();
  let next = 0;
  let stop = false;
  const worker = async (): Promise<void> => {
    while (!stop) {
      const n = next++;
      try {
        acked.push(...(await send(n)));
      } catch (err) {
        const name = err instanceof Error ? err.name : 'unknown';
        failures.set(name, (failures.get(name) ?? 0) + 1);
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  };
  const running = Array.from({ length: workers }, worker);
  try {
    await during();
  } finally {
    stop = true;
    await Promise.all(running);
  }
  return { acked, failures, sends: next };
}

/**
 * Every acknowledged record that is not in `topic` at its acknowledged coordinate with its own
 * bytes (a false ACK), and every coordinate acknowledged twice.
 */
export function falseAcks(stored: ReadonlyMap<string, Buffer>, acked: readonly AckedRecord[]): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const a of acked) {
    const at = `${a.partition}:${a.offset}`;
    if (seen.has(at)) problems.push(`${at} acknowledged twice`);
    seen.add(at);
    const v = stored.get(at);
    if (!v) problems.push(`${at} acknowledged but absent`);
    else if (!v.equals(a.value)) problems.push(`${at} acknowledged but holds another record's bytes`);
  }
  return problems;
}
