/** Polls `probe` every `intervalMs` until it returns true (or fails after `timeoutMs` with `what`). */
export async function eventually(what: string, probe: () => Promise<boolean>, timeoutMs = 60_000, intervalMs = 300): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await probe()) return;
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  throw new Error(`timed out waiting for: ${what}`);
}
