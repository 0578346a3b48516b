import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Deployment } from './deployment';
import { isolatedEnv } from './isolated-env';
import { runToExit } from './service-process';

/**
 * The harness over real child processes: a stand-in "service" (a few lines of node) that answers
 * /readyz and reports its environment, and a command that prints and exits with a chosen code.
 */
const dir = mkdtempSync(path.join(tmpdir(), 'service-stack-'));
const service = path.join(dir, 'service.js');
const command = path.join(dir, 'command.js');
writeFileSync(
  service,
  `require('node:http').createServer((q, s) => s.end(q.url === '/env' ? JSON.stringify(process.env) : 'ok'))
     .listen(Number(process.env.QIM_HTTP_PORT), process.env.QIM_HTTP_HOST);
   process.on('SIGTERM', () => process.exit(0));`,
);
writeFileSync(
  command,
  `console.log('first line'); console.log('x'.repeat(100)); ` +
    `console.error('last line ' + process.argv.slice(2).join(' ')); process.exit(Number(process.env.EXIT_CODE));`,
);

const envOf = async (url: string): Promise<Record<string, string>> => (await fetch(`${url}/env`)).json() as Promise<Record<string, string>>;

describe('runToExit', () => {
  it('answers the exit code and the output; tailChars keeps the end of it and the log file all of it', async () => {
    const log = path.join(dir, 'command.log');
    const r = await runToExit('cmd', command, { EXIT_CODE: '3' }, ['a', 'b'], 30_000, { tailChars: 20, logFile: log });
    expect({ code: r.code, output: r.output }).toEqual({ code: 3, output: expect.stringMatching(/^.{0,20}$/s) });
    expect(r.output).toContain('last line a b');
    expect(readFileSync(log, 'utf8')).toContain('first line');
  });
});

describe('Deployment', () => {
  const entries = { writer: service, mailbox: service, admin: command };

  it('starts instances on their ports with the environment in layers, restarts them on the same port, and stops them', async () => {
    const d = new Deployment({ entries, env: { ...isolatedEnv('unit', 'r1', 'tok'), EXIT_CODE: '0' }, instanceEnv: (i) => ({ WHO: i.name }) });
    try {
      const w = await d.add('writer', 'writer-1');
      const first = await envOf(w.url);
      expect({ ns: first['QIM_REDIS_NAMESPACE'], who: first['WHO'], port: first['QIM_HTTP_PORT'] }).toEqual({
        ns: 'unit-r1',
        who: 'writer-1',
        port: String(w.port),
      });
      const before = w.process!;
      expect(await before.stop('SIGTERM')).toEqual({ code: 0, signal: null });
      await d.start(w, 30_000, '/readyz', { EXTRA: 'once' });
      expect(w.process).not.toBe(before);
      expect((await envOf(w.url))['EXTRA']).toBe('once');
      expect(await d.instance('writer', 'writer-1')).toBe(w);
      expect((await d.runToExit('admin', 'admin-cmd', { EXIT_CODE: '0' })).code).toBe(0);
    } finally {
      await d.down();
    }
    expect(d.instances.every((i) => i.process?.running === false)).toBe(true);
  });

  it('fails readiness at once, with the output, when the process exits before it is ready', async () => {
    const d = new Deployment({ entries: { writer: command, mailbox: command }, env: { EXIT_CODE: '7' } });
    const started = Date.now();
    await expect(d.add('mailbox', 'm')).rejects.toThrow(/m exited \(\{"code":7,"signal":null\}\) before ready:[\s\S]*last line/);
    expect(Date.now() - started).toBeLessThan(20_000);
  });
});
