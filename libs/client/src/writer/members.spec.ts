import { QimApiError, QimArgumentError } from '../errors/qim-error';
import { QimClient } from '../qim-client';
import { ScriptedServer } from '../testing/scripted-server';
import { hex } from '../testing/wire-fixtures';

const T = hex(0x7e),
  CONV = hex(0xc0);
const PATH = `/v1/conversations/${CONV}/members`;

describe('QimClient membership', () => {
  let server: ScriptedServer;
  let client: QimClient;
  beforeEach(async () => {
    server = await ScriptedServer.start();
    client = new QimClient({ writerUrl: server.url, mailboxUrl: server.url, token: 'secret-token', tenantId: T });
  });
  afterEach(() => server.close());

  it('adds (PUT), removes (DELETE) and lists (GET) as the acting tenant, without a user', async () => {
    server.on('PUT', PATH, [{ status: 200, body: { conversation_id: CONV, members: 3 } }]);
    server.on('DELETE', PATH, [{ status: 200, body: { conversation_id: CONV, members: 2 } }]);
    server.on('GET', PATH, [{ status: 200, body: { conversation_id: CONV, members: [hex(1), hex(3)] } }]);
    expect(await client.addMembers(CONV, [hex(1), hex(2), hex(3)])).toBe(3);
    expect(await client.removeMembers(CONV, [hex(2)])).toBe(2);
    expect(await client.members(CONV)).toEqual([hex(1), hex(3)]);
    expect(server.requests.map((r) => [r.method, r.body, r.headers['x-qim-tenant'], r.headers['x-qim-user']])).toEqual([
      ['PUT', { members: [hex(1), hex(2), hex(3)] }, T, undefined],
      ['DELETE', { members: [hex(2)] }, T, undefined],
      ['GET', null, T, undefined],
    ]);
  });

  it('keeps the service code of a refusal it does not model (422 FANOUT_LIMIT)', async () => {
    server.on('PUT', PATH, [{ status: 422, body: { code: 'FANOUT_LIMIT', message: 'beyond 10000 members' } }]);
    const err = await client.addMembers(CONV, [hex(9)]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(QimApiError);
    expect(err).toMatchObject({ code: 'FANOUT_LIMIT', status: 422 });
  });

  it('refuses an empty list or a malformed member before sending', async () => {
    await expect(client.addMembers(CONV, [])).rejects.toBeInstanceOf(QimArgumentError);
    await expect(client.removeMembers(CONV, ['ALICE'])).rejects.toThrow('member');
    expect(server.requests).toHaveLength(0);
  });

  it('fails closed on a member list holding something that is not an id', async () => {
    server.on('GET', PATH, [{ status: 200, body: { conversation_id: CONV, members: [hex(1), 42] } }]);
    await expect(client.members(CONV)).rejects.toThrow('members.members[1]');
  });
});
