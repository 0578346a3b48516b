/**
 * In-process tables with per-row absolute expiry: the storage under the Memory reference model.
 * A row is live while `expiresAt === null || now < expiresAt`; an expired row is invisible to
 * every read at once (like a server TTL) and physically dropped only by `sweep` (the stores' GC
 * methods). Every read is counted in a shared `ReadCounter`, so the contract can see whether an
 * operation touched storage at all.
 */

/** Counts storage reads (one per point read or scan). */
export class ReadCounter {
  reads = 0;
}

interface Cell<V> {
  value: V;
  expiresAt: bigint | null;
}

function live<V>(cell: Cell<V> | undefined, now: bigint): cell is Cell<V> {
  return cell !== undefined && (cell.expiresAt === null || now < cell.expiresAt);
}

/** Clustering keys sort ascending (bigint offsets/seqs, or zero-padded strings). */
export type ClusteringKey = bigint | string;

function compareKeys<C extends ClusteringKey>(a: C, b: C): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A partitioned table: partition key → rows ordered by clustering key. */
export class MemoryTable<C extends ClusteringKey, V> {
  private readonly partitions = new Map<string, Map<C, Cell<V>>>();

  constructor(private readonly counter: ReadCounter) {}

  /** Rows held, expired ones not yet swept included (what the process holds; not a counted read). */
  physicalRows(): number {
    let n = 0;
    for (const rows of this.partitions.values()) n += rows.size;
    return n;
  }

  /** Point read of a live row. */
  get(pk: string, ck: C, now: bigint): V | null {
    this.counter.reads++;
    const cell = this.partitions.get(pk)?.get(ck);
    return live(cell, now) ? cell.value : null;
  }

  /** The expiry of a live row (undefined when absent or expired). Counted as a read. */
  expiryOf(pk: string, ck: C, now: bigint): bigint | null | undefined {
    this.counter.reads++;
    const cell = this.partitions.get(pk)?.get(ck);
    return live(cell, now) ? cell.expiresAt : undefined;
  }

  /** Live rows of a partition, ascending by clustering key (one counted read). */
  scan(pk: string, now: bigint): [C, V][] {
    this.counter.reads++;
    const rows = [...(this.partitions.get(pk) ?? new Map<C, Cell<V>>()).entries()].filter(([, cell]) => live(cell, now));
    return rows.sort(([a], [b]) => compareKeys(a, b)).map(([k, cell]) => [k, cell.value]);
  }

  /** Live partition keys that start with `prefix` (one counted read). */
  partitionKeys(prefix: string, now: bigint): string[] {
    this.counter.reads++;
    return [...this.partitions.entries()].filter(([pk, rows]) => pk.startsWith(prefix) && [...rows.values()].some((c) => live(c, now))).map(([pk]) => pk);
  }

  /** Upsert of a whole row with its absolute expiry (null = none). Replaces an expired row too. */
  put(pk: string, ck: C, value: V, expiresAt: bigint | null): void {
    let part = this.partitions.get(pk);
    if (part === undefined) this.partitions.set(pk, (part = new Map()));
    part.set(ck, { value, expiresAt });
  }

  /** Replaces a live row's value keeping its expiry (a column update); false when the row is not live. */
  update(pk: string, ck: C, value: V, now: bigint): boolean {
    const cell = this.partitions.get(pk)?.get(ck);
    if (!live(cell, now)) return false;
    cell.value = value;
    return true;
  }

  /** Gives a live row without expiry the absolute expiry `expiresAt`; a row that already has one is never renewed. */
  scheduleExpiry(pk: string, ck: C, expiresAt: bigint, now: bigint): boolean {
    const cell = this.partitions.get(pk)?.get(ck);
    if (!live(cell, now) || cell.expiresAt !== null) return false;
    cell.expiresAt = expiresAt;
    return true;
  }

  /** Physically removes a row (fault injection only: the model never deletes data). */
  remove(pk: string, ck: C): boolean {
    return this.partitions.get(pk)?.delete(ck) ?? false;
  }

  /** Overwrites a live row's value regardless of expiry (fault injection only). */
  damage(pk: string, ck: C, value: V): boolean {
    const cell = this.partitions.get(pk)?.get(ck);
    if (cell === undefined) return false;
    cell.value = value;
    return true;
  }

  /** Rows physically held, live or expired (what the process's memory holds; not a read). */
  physicalSize(): number {
    let n = 0;
    for (const part of this.partitions.values()) n += part.size;
    return n;
  }

  /** Physically drops up to `limit` expired rows; returns how many were examined and dropped. */
  sweep(now: bigint, limit: number): { dropped: number; more: boolean } {
    let dropped = 0;
    for (const [pk, part] of this.partitions) {
      for (const [ck, cell] of part) {
        if (live(cell, now)) continue;
        if (dropped >= limit) return { dropped, more: true };
        part.delete(ck);
        dropped++;
      }
      if (part.size === 0) this.partitions.delete(pk);
    }
    return { dropped, more: false };
  }
}

/** A key-value table: one row per key (a partition with a single clustering key). */
export class MemoryKvTable<V> {
  private readonly table: MemoryTable<string, V>;

  constructor(counter: ReadCounter) {
    this.table = new MemoryTable<string, V>(counter);
  }
  /** Rows held, expired ones not yet swept included (not a counted read). */
  physicalRows(): number {
    return this.table.physicalRows();
  }
  get(key: string, now: bigint): V | null {
    return this.table.get(key, '', now);
  }
  expiryOf(key: string, now: bigint): bigint | null | undefined {
    return this.table.expiryOf(key, '', now);
  }
  put(key: string, value: V, expiresAt: bigint | null): void {
    this.table.put(key, '', value, expiresAt);
  }
  update(key: string, value: V, now: bigint): boolean {
    return this.table.update(key, '', value, now);
  }
  scheduleExpiry(key: string, expiresAt: bigint, now: bigint): boolean {
    return this.table.scheduleExpiry(key, '', expiresAt, now);
  }
  remove(key: string): boolean {
    return this.table.remove(key, '');
  }
  damage(key: string, value: V): boolean {
    return this.table.damage(key, '', value);
  }
  sweep(now: bigint, limit: number): { dropped: number; more: boolean } {
    return this.table.sweep(now, limit);
  }
  physicalSize(): number {
    return this.table.physicalSize();
  }
}

/** A u64 as a fixed-width decimal, so string clustering keys sort numerically. */
export function padU64(v: bigint): string {
  return v.toString(10).padStart(20, '0');
}

/** Yields to the event loop: separates the steps of one operation the way network round trips do, so concurrent calls interleave. */
export function yieldTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
