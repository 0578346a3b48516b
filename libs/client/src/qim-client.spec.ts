import { QimArgumentError } from './errors/qim-error';
import { QimClient } from './qim-client';
import { ScriptedServer } from './testing/scripted-server';
import { hex, syncJson } from './testing/wire-fixtures';

const base = { writerUrl: 'http://127.0.0.1:1', mailboxUrl: 'http://127.0.0.1:2', token: 'secret-token' };

describe('QimClient', () => {
  it.each([
    [{ ...base, token: '' }, 'token'],
    [{ ...base, writerUrl: 'not a url' }, 'writerUrl'],
    [{ ...base, mailboxUrl: 'ftp://host' }, 'mailboxUrl'],
    [{ ...base, tenantId: 'TENANT' }, 'tenantId'],
    [{ ...base, userId: hex(0xab).toUpperCase() }, 'userId'],
    [{ ...base, timeoutMs: 0 }, 'timeoutMs'],
    [{ ...base, retry: { attempts: 0 } }, 'retry.attempts'],
  ])('refuses bad options (%#: %s)', (options, what) => {
    expect(() => new QimClient(options)).toThrow(QimArgumentError);
    expect(() => new QimClient(options)).toThrow(what);
  });

  it('acts as another user of the same tenant through as()', async () => {
    const server = await ScriptedServer.start();
    try {
      server.on('GET', /^\/v1\/mailboxes\/[0-9a-f]{32}\/entries$/, [{ status: 200, body: syncJson([], 0n, false) }]);
      const client = new QimClient({ ...base, writerUrl: server.url, mailboxUrl: server.url, tenantId: hex(7), userId: hex(1) });
      const carol = client.as(hex(3));
      expect([carol.tenantId, carol.userId, client.userId]).toEqual([hex(7), hex(3), hex(1)]);
      await carol.syncPage();
      expect(server.requests[0]!.path).toBe(`/v1/mailboxes/${hex(3)}/entries`);
      expect(server.requests[0]!.headers['x-qim-user']).toBe(hex(3));
    } finally {
      await server.close();
    }
  });
});
