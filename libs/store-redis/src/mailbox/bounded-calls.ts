/**
 * Runs `fn` over `items` with at most `limit` calls in flight, results in input order. New calls
 * start as earlier ones settle (a steady pipelined stream instead of a flood); after the first
 * failure no new call starts and that failure is thrown once the calls in flight have settled.
 */
export async function runBounded<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  let failure: { readonly error: unknown } | null = null;
  const worker = async (): Promise<void> => {
    while (failure === null && next < items.length) {
      const i = next++;
      try {
        out[i] = await fn(items[i]!);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure !== null) throw (failure as { readonly error: unknown }).error;
  return out;
}
