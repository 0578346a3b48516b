import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { envVariableDocs, renderConfigReference } from '@qim/service-kit';
import { mailboxEnvShape } from '@qim/mailbox-runtime';
import { writerEnvShape } from '@qim/writer-runtime';
import { intField } from '@qim/store-core';
import { BACKEND_ENV } from '@qim/backends';

const DOC = join(__dirname, '..', '..', '..', 'docs', 'configuration.md');

describe('configuration reference (docs/configuration.md)', () => {
  it('is what the schemas generate', () => {
    const generated = renderConfigReference(envVariableDocs({ ...writerEnvShape, ...BACKEND_ENV.shape }, { ...mailboxEnvShape, ...BACKEND_ENV.shape }));
    if (process.env['QIM_WRITE_CONFIG_DOC'] === '1') writeFileSync(DOC, generated);
    expect(readFileSync(DOC, 'utf8')).toBe(generated);
  });

  it('refuses a variable without a description', () => {
    expect(() => envVariableDocs({ QIM_A: intField(0, 1, 0).describe('a') }, { QIM_B: z.string() })).toThrow(/QIM_B has no description/);
  });

  it('derives service, default and required from the schemas', () => {
    const docs = envVariableDocs(
      { QIM_A: intField(0, 9, 5).describe('a'), QIM_R: z.string().min(1).describe('r') },
      { QIM_A: intField(0, 9, 5).describe('a'), QIM_M: z.string().optional().describe('m|n') },
    );
    expect(docs).toEqual([
      { name: 'QIM_A', services: 'both', defaultValue: '5', required: false, meaning: 'a' },
      { name: 'QIM_M', services: 'mailbox', defaultValue: null, required: false, meaning: 'm|n' },
      { name: 'QIM_R', services: 'writer', defaultValue: null, required: true, meaning: 'r' },
    ]);
    expect(renderConfigReference(docs)).toContain('| `QIM_M` | mailbox | — | m\\|n |');
  });
});
