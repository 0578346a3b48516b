/**
 * The few Redis commands the service library itself uses (membership, writer leases, readiness).
 * The connection is created by `@qim/store-redis` (the only owner of the driver); any ioredis
 * client satisfies this structurally.
 */
export interface RedisCommands {
  eval(script: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
  smembers(key: string): Promise<string[]>;
  sismember(key: string, member: string): Promise<number>;
  set(key: string, value: string, px: 'PX', ttlMs: number, nx: 'NX'): Promise<'OK' | null>;
  get(key: string): Promise<string | null>;
  ping(): Promise<string>;
  quit(): Promise<unknown>;
}
