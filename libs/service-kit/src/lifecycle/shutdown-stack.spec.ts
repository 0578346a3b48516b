import { ShutdownStack } from './shutdown-stack';

describe('ShutdownStack', () => {
  it('closes in reverse order, past failures and timeouts, once', async () => {
    const order: string[] = [];
    const s = new ShutdownStack();
    s.push('cassandra', async () => void order.push('cassandra'));
    s.push('redis', async () => {
      order.push('redis');
      throw new Error('boom');
    });
    s.push('producer', () => new Promise<void>(() => order.push('producer')));
    s.push('consumer', async () => void order.push('consumer'));
    const failed = await s.closeAll(50);
    expect(order).toEqual(['consumer', 'producer', 'redis', 'cassandra']);
    expect(failed).toEqual(['producer', 'redis']);
    expect(await s.closeAll(50)).toBe(failed);
  });
});
