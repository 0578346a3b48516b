/**
 * Serialises the entries of one user inside one operation: `run(user, fn)` starts `fn` once every
 * earlier `run` of the same user has settled (failed or not); different users never wait for each
 * other. Only users named more than once in the operation (`from`) are locked at all — a single entry
 * runs as is, without any bookkeeping.
 */
export class UserLocks {
  private readonly tails = new Map<string, Promise<void>>();
  private readonly contended: ReadonlySet<string>;

  constructor(users: Iterable<string>) {
    const seen = new Set<string>();
    const twice = new Set<string>();
    for (const u of users) (seen.has(u) ? twice : seen).add(u);
    this.contended = twice;
  }

  async run(user: string, fn: () => Promise<void>): Promise<void> {
    if (!this.contended.has(user)) return fn();
    const prev = this.tails.get(user);
    const mine = (prev ?? Promise.resolve()).then(fn, fn);
    const tail = mine.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(user, tail);
    try {
      await mine;
    } finally {
      if (this.tails.get(user) === tail) this.tails.delete(user);
    }
  }
}
