import { SchemaRefusedError } from '../schema/schema-refused-error';
import { awaitSchemaAgreement } from './schema-agreement';

function fakeClock() {
  let t = 0;
  return { now: () => t, sleep: async (ms: number) => void (t += ms) };
}

describe('awaitSchemaAgreement', () => {
  it('returns as soon as the nodes agree', async () => {
    const answers = [false, false, true];
    let calls = 0;
    await awaitSchemaAgreement({ checkSchemaAgreement: async () => answers[calls++]! }, 'before migrate', { boundMs: 10_000, ...fakeClock() });
    expect(calls).toBe(3);
  });

  it('refuses with the reason and the operator action once the bound passes', async () => {
    let calls = 0;
    const p = awaitSchemaAgreement({ checkSchemaAgreement: async () => (calls++, false) }, 'before migrate', { boundMs: 2_000, pollMs: 500, ...fakeClock() });
    await expect(p).rejects.toBeInstanceOf(SchemaRefusedError);
    await expect(p).rejects.toThrow(/do not agree on one schema version before migrate \(waited 2000 ms\).*nodetool describecluster/);
    expect(calls).toBe(5);
  });
});
