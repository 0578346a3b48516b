import { TENANT_HEADER, USER_HEADER } from '@qim/wire';
import type { Id128 } from '../wire/ids';
import { requireId128 } from '../wire/ids';

/** On whose behalf calls act. The services trust these headers only behind a valid service token. */
export interface ActingIdentity {
  readonly tenantId: Id128 | null;
  readonly userId: Id128 | null;
}

/** `x-qim-tenant` for routes that act on a tenant (membership); a missing or malformed id is refused here. */
export function tenantHeaders(who: ActingIdentity): Record<string, string> {
  return { [TENANT_HEADER]: requireId128('tenantId', who.tenantId) };
}

/** The checked user headers of each identity, made once (a benchmark's device polls with the same identity thousands of times). */
const checked = new WeakMap<ActingIdentity, Readonly<Record<string, string>>>();

/** `x-qim-tenant` and `x-qim-user` for routes that act as a user (send, history, summaries, sync). The same frozen object on every call. */
export function userHeaders(who: ActingIdentity): Readonly<Record<string, string>> {
  let h = checked.get(who);
  if (h === undefined) {
    h = Object.freeze({ ...tenantHeaders(who), [USER_HEADER]: requireId128('userId', who.userId) });
    checked.set(who, h);
  }
  return h;
}
