/** One readiness fact: `ok` plus details an operator can read in the `/readyz` body. */
export interface ReadinessResult {
  readonly ok: boolean;
  readonly detail?: unknown;
}

/** A named, real check (a backend query, a lease, a consumer state) — never "a socket is open". */
export interface ReadinessCheck {
  readonly name: string;
  check(): Promise<ReadinessResult>;
}

export interface ReadinessReport {
  readonly ready: boolean;
  readonly checks: Readonly<Record<string, ReadinessResult>>;
}

/** Runs every check concurrently, each bounded by `timeoutMs`; a throw or timeout is `ok: false`. */
export async function runReadiness(checks: readonly ReadinessCheck[], timeoutMs = 2_000): Promise<ReadinessReport> {
  const results = await Promise.all(
    checks.map(async (c): Promise<[string, ReadinessResult]> => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<ReadinessResult>((resolve) => {
        timer = setTimeout(() => resolve({ ok: false, detail: `timed out after ${timeoutMs} ms` }), timeoutMs);
      });
      try {
        const r = await Promise.race([c.check(), timeout]);
        return [c.name, r];
      } catch (err) {
        return [c.name, { ok: false, detail: err instanceof Error ? err.message : String(err) }];
      } finally {
        clearTimeout(timer);
      }
    }),
  );
  return { ready: results.every(([, r]) => r.ok), checks: Object.fromEntries(results) };
}
