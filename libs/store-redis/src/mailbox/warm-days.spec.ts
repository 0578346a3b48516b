import { EventEmitter } from 'node:events';
import { connectionGeneration } from './warm-days';

describe('connectionGeneration', () => {
  it('one close listener per client however many stores share it; every lost connection counts', () => {
    const client = new EventEmitter();
    const gens = Array.from({ length: 64 }, () => connectionGeneration(client));
    expect(new Set(gens).size).toBe(1);
    expect(client.listenerCount('close')).toBe(1);
    client.emit('close');
    client.emit('close');
    expect(gens[0]!.value).toBe(2);
    expect(connectionGeneration(new EventEmitter()).value).toBe(0);
  });
});
