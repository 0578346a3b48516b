import type { Id128 } from '@qim/store-core';
import type { MailboxBucketKeys, RedisKeys, UserKeys } from '../keys/redis-keys';
import { MAILBOX_BUCKETS } from '../keys/redis-keys';

/**
 * Bounded memory of the key names of the users the append path writes, and of the 256 bucket keys.
 * `RedisKeys.user` hashes the ids (SHA-256) and builds its strings on every call: paid once per user
 * of every page otherwise, a visible share of the client CPU of a page of small dispatches. The names
 * never change, so the oldest user is simply dropped when full.
 */
export class UserKeysCache {
  private readonly users = new Map<string, UserKeys>();
  private readonly buckets: (MailboxBucketKeys | undefined)[] = new Array<MailboxBucketKeys | undefined>(MAILBOX_BUCKETS);

  constructor(
    private readonly keys: RedisKeys,
    private readonly capacity: number,
  ) {}

  /** `keys.user(tenantId, userId)`; `user` is tenant + user (the `PreparedEntry.user` form). */
  user(tenantId: Id128, userId: Id128, user: string): UserKeys {
    let k = this.users.get(user);
    if (k === undefined) {
      k = this.keys.user(tenantId, userId);
      this.users.set(user, k);
      if (this.users.size > this.capacity) {
        const oldest = this.users.keys().next();
        if (oldest.done !== true) this.users.delete(oldest.value);
      }
    }
    return k;
  }

  bucket(bucket: number): MailboxBucketKeys {
    return (this.buckets[bucket] ??= this.keys.mailboxBucket(bucket));
  }
}
