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

  it('keeps one global deadline over all steps: hanging steps share it instead of each taking its own bound', async () => {
    const s = new ShutdownStack();
    const started: string[] = [];
    for (const name of ['cassandra', 'redis', 'producer', 'consumer']) s.push(name, () => new Promise<void>(() => started.push(name)));
    const t0 = Date.now();
    const failed = await s.closeAll({ stepMs: 2_000, deadlineAt: t0 + 300 });
    const took = Date.now() - t0;
    expect(took).toBeGreaterThanOrEqual(290);
    expect(took).toBeLessThan(1_000);
    expect(failed).toEqual(['consumer', 'producer', 'redis', 'cassandra']);
    // The first step used the whole budget; the others were abandoned without being waited for.
    expect(started).toEqual(['consumer']);
  });
});
