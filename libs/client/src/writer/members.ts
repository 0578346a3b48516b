import { QimArgumentError } from '../errors/qim-error';
import type { ActingIdentity } from '../http/acting-headers';
import { tenantHeaders } from '../http/acting-headers';
import type { HttpTransport } from '../http/http-transport';
import type { Id128 } from '../wire/ids';
import { requireId128 } from '../wire/ids';
import { JsonReader } from '../wire/json-reader';

function membersBody(users: readonly Id128[]): { members: Id128[] } {
  if (users.length < 1 || users.length > 10_000) throw new QimArgumentError(`members take 1…10000 users, got ${users.length}`);
  return { members: users.map((u) => requireId128('member', u)) };
}

/**
 * `PUT` (add) or `DELETE` (remove) `/v1/conversations/:id/members` for the acting tenant; answers
 * the member count afterwards. Both are idempotent. Adding beyond the writer's `QIM_MAX_FANOUT`
 * is refused (`QimApiError` with code `FANOUT_LIMIT`, 422).
 */
export async function changeMembers(
  http: HttpTransport,
  who: ActingIdentity,
  op: 'add' | 'remove',
  conversationId: Id128,
  users: readonly Id128[],
  signal?: AbortSignal,
): Promise<number> {
  const id = requireId128('conversationId', conversationId);
  const body = membersBody(users);
  const a = await http.call({
    method: op === 'add' ? 'PUT' : 'DELETE',
    path: `/v1/conversations/${id}/members`,
    body,
    headers: tenantHeaders(who),
    auth: true,
    signal,
  });
  return new JsonReader(a.body, 'members', a.call, a.status).number('members');
}

/** `GET /v1/conversations/:id/members`: the members of a conversation of the acting tenant. */
export async function listMembers(http: HttpTransport, who: ActingIdentity, conversationId: Id128, signal?: AbortSignal): Promise<Id128[]> {
  const id = requireId128('conversationId', conversationId);
  const a = await http.call({ method: 'GET', path: `/v1/conversations/${id}/members`, headers: tenantHeaders(who), auth: true, signal });
  return new JsonReader(a.body, 'members', a.call, a.status).ids('members');
}
