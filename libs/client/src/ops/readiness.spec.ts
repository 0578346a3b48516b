import { QimTransportError } from '../errors/qim-error';
import { QimClient } from '../qim-client';
import { ScriptedServer } from '../testing/scripted-server';

describe('QimClient.readiness and shardStatus', () => {
  let writer: ScriptedServer;
  let mailbox: ScriptedServer;
  let client: QimClient;
  beforeEach(async () => {
    [writer, mailbox] = await Promise.all([ScriptedServer.start(), ScriptedServer.start()]);
    client = new QimClient({ writerUrl: writer.url, mailboxUrl: mailbox.url, token: 'secret-token' });
  });
  afterEach(() => Promise.all([writer.close(), mailbox.close()]));

  it('answers ready and not ready (503) as values, each check with its details, without retrying', async () => {
    writer.on('GET', '/readyz', [
      { status: 200, body: { status: 'ready', checks: { backend: { ok: true }, 'writer-lease': { ok: true, detail: { writerId: 3 } } } } },
    ]);
    mailbox.on('GET', '/readyz', [{ status: 503, body: { status: 'not_ready', checks: { kafka: { ok: false, detail: 'no brokers' } } } }]);
    expect(await client.readiness('writer')).toEqual({
      ready: true,
      status: 200,
      checks: { backend: { ok: true }, 'writer-lease': { ok: true, detail: { writerId: 3 } } },
    });
    expect(await client.readiness('mailbox')).toEqual({ ready: false, status: 503, checks: { kafka: { ok: false, detail: 'no brokers' } } });
    expect(mailbox.requests).toHaveLength(1);
    // The token: /readyz names its checks and their details only to a caller presenting it.
    expect(writer.requests[0]!.headers['authorization']).toBe('Bearer secret-token');
  });

  it("reads the public answer (the status only, no checks) of a service that does not know the client's token", async () => {
    writer.on('GET', '/readyz', [{ status: 503, body: { status: 'not_ready' } }]);
    expect(await client.readiness('writer')).toEqual({ ready: false, status: 503, checks: {} });
  });

  it('reports an unreachable service as a transport error after one attempt', async () => {
    await writer.close();
    const err = await client.readiness('writer').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(QimTransportError);
    expect(err).toMatchObject({ attempts: 1 });
    writer = await ScriptedServer.start();
  });

  it('reads the frontier and lag of a shard where reported and keeps the whole answer', async () => {
    mailbox.on('GET', '/v1/shards/1/status', [
      {
        status: 200,
        body: {
          shard: 1,
          epoch: 2,
          frontier: '41',
          assigned_here: true,
          kafka: { committed: '40', end: '45', lag: '5', unapplied: '3' },
          stalled: { since: 'now', reason: 'gap' },
        },
      },
    ]);
    mailbox.on('GET', '/v1/shards/0/status', [{ status: 200, body: { shard: 0, epoch: 2, frontier: null } }]);
    const s1 = await client.shardStatus(1);
    expect([s1.shard, s1.epoch, s1.frontier, s1.lag, s1.unapplied, s1.assignedHere, s1.stall]).toEqual([
      1,
      2,
      41n,
      5n,
      3n,
      true,
      { since: 'now', reason: 'gap' },
    ]);
    expect(s1.raw['kafka']).toEqual({ committed: '40', end: '45', lag: '5', unapplied: '3' });
    const s0 = await client.shardStatus(0);
    expect([s0.frontier, s0.lag, s0.unapplied, s0.assignedHere, s0.stall]).toEqual([null, null, null, null, null]);
  });

  it('surfaces a shard beyond the configured count as the service refused it', async () => {
    mailbox.on('GET', '/v1/shards/9/status', [{ status: 400, body: { code: 'INVALID_INPUT', message: 'shard must be 0…1' } }]);
    await expect(client.shardStatus(9)).rejects.toMatchObject({ code: 'INVALID_INPUT', status: 400 });
    await expect(client.shardStatus(-1)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});
