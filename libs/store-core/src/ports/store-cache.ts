import type { MailboxStore } from './mailbox-store';

/** One store per shard per process, opened on first use; `closeAll` closes each once. */
export class StoreCache {
  private readonly stores = new Map<number, Promise<MailboxStore>>();

  constructor(private readonly open: (shard: number) => Promise<MailboxStore>) {}

  get(shard: number): Promise<MailboxStore> {
    let s = this.stores.get(shard);
    if (!s) {
      s = this.open(shard);
      this.stores.set(shard, s);
      s.catch(() => this.stores.delete(shard));
    }
    return s;
  }

  async closeAll(): Promise<void> {
    const all = [...this.stores.values()];
    this.stores.clear();
    for (const s of all) await (await s).close();
  }
}
