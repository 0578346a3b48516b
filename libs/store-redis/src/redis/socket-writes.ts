import type { Redis } from 'ioredis';

type SocketWrite = '_write' | '_writev';

/**
 * Counts the socket writes of one ioredis connection (`_write` and `_writev` of its stream, so
 * commands corked into one write count once): the client round trips a step really costs. Used by
 * the specs that pin round-trip counts and by the commit benchmark. `restore()` removes the wrappers.
 */
export function countSocketWrites(redis: Redis): { count(): number; restore(): void } {
  const socket = (redis as unknown as { stream: Record<SocketWrite, (...a: unknown[]) => void> }).stream;
  let writes = 0;
  for (const name of ['_write', '_writev'] as const) {
    const original = socket[name];
    socket[name] = (...a: unknown[]) => {
      writes += 1;
      original.apply(socket, a);
    };
  }
  return {
    count: () => writes,
    restore: () => {
      delete (socket as Partial<typeof socket>)._write;
      delete (socket as Partial<typeof socket>)._writev;
    },
  };
}
