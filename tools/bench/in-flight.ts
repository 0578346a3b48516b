/** Shared by the small client-side benchmarks: numeric flags and a closed-loop CPU measure. */

/** `--name N` from the command line, else `fallback`. */
export function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

/** This process's CPU per call and the calls per second. */
export interface InFlightMeasure {
  readonly usPerCall: number;
  readonly perSecond: number;
}

/** Runs `call` `calls` times with `inFlight` of them outstanding at once (each worker awaits its own). */
export async function measureInFlight(call: () => Promise<unknown>, calls: number, inFlight: number): Promise<InFlightMeasure> {
  let left = calls;
  const worker = async (): Promise<void> => {
    while (left-- > 0) await call();
  };
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(Array.from({ length: inFlight }, worker));
  const cpu = process.cpuUsage(cpu0);
  return { usPerCall: (cpu.user + cpu.system) / calls, perSecond: (calls * 1000) / (performance.now() - t0) };
}
