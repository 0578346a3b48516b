import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { createKafka, noDelaySocketFactory } from './kafka-factory';

const brokers = process.env['QIM_KAFKA_BROKERS'];
if (!brokers) throw new Error('QIM_KAFKA_BROKERS is not set: run `tools/infra/infra up kafka` and `eval "$(tools/infra/infra env)"`');

/** Every setNoDelay / setKeepAlive call on any socket while `run` runs (the real methods still run). */
async function socketCalls(run: () => Promise<void>): Promise<{ noDelay: unknown[]; keepAlive: unknown[][] }> {
  const noDelay = jest.spyOn(net.Socket.prototype, 'setNoDelay');
  const keepAlive = jest.spyOn(net.Socket.prototype, 'setKeepAlive');
  try {
    await run();
    return { noDelay: noDelay.mock.calls.map((c) => c[0]), keepAlive: keepAlive.mock.calls };
  } finally {
    noDelay.mockRestore();
    keepAlive.mockRestore();
  }
}

describe('Kafka connections without the Nagle delay', () => {
  it('noDelaySocketFactory connects with TCP_NODELAY and a 60 s keep-alive, and calls onConnect', async () => {
    const server = net.createServer((s) => s.end());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    try {
      const calls = await socketCalls(async () => {
        await new Promise<void>((resolve, reject) => {
          const socket = noDelaySocketFactory()({ host: '127.0.0.1', port, ssl: null as never, onConnect: () => (socket.destroy(), resolve()) });
          socket.once('error', reject);
        });
      });
      expect(calls.noDelay).toContain(true);
      expect(calls.keepAlive).toContainEqual([true, 60_000]);
    } finally {
      server.close();
    }
  });

  it("createKafka's clients open their broker connections with TCP_NODELAY (real broker)", async () => {
    const kafka = createKafka({ brokers: brokers.split(','), clientId: 'qim-nodelay-spec' });
    const admin = kafka.admin();
    const calls = await socketCalls(async () => {
      await admin.connect();
      await admin.listTopics();
    });
    await admin.disconnect();
    expect(calls.noDelay.length).toBeGreaterThan(0);
    expect(calls.noDelay.every((v) => v === true)).toBe(true);
  });
});
