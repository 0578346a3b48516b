import { createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import { UnavailableError } from '@qim/store-core';
import { GroupOffsetsReader } from './group-offsets';
import { createKafka } from './kafka-factory';

jest.setTimeout(60_000);

/**
 * Issue 28 item 5 (Kafka admin): a broker that accepts connections and never answers (a paused
 * process looks like this) must not hold an admin call for kafkajs's request timeouts and retries.
 */
describe('GroupOffsetsReader against a broker that does not answer', () => {
  let server: Server;
  const sockets = new Set<Socket>();
  let port = 0;

  beforeAll(async () => {
    server = createServer((s) => {
      sockets.add(s);
      s.on('data', () => undefined); // read, never answer
      s.on('close', () => sockets.delete(s));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as { port: number }).port;
  });

  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((r) => server.close(() => r()));
  });

  it('each call fails with UnavailableError within callTimeoutMs', async () => {
    const reader = new GroupOffsetsReader(createKafka({ brokers: [`127.0.0.1:${port}`], clientId: 'bound-spec' }), { callTimeoutMs: 500 });
    for (const call of [() => reader.offsets('g', 't'), () => reader.members('g')]) {
      let timer: NodeJS.Timeout | undefined;
      const watchdog = new Promise<'pending'>((r) => (timer = setTimeout(() => r('pending'), 15_000)));
      const outcome = await Promise.race([
        call().then(
          () => 'answered',
          (e: unknown) => e,
        ),
        watchdog,
      ]);
      clearTimeout(timer);
      expect(outcome).toBeInstanceOf(UnavailableError);
      expect(String((outcome as Error).message)).toMatch(/kafka admin .* did not answer within 500 ms/);
    }
    await reader.close().catch(() => undefined);
  });
});
