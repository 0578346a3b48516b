/**
 * CPU of the client process per request, @qim/client's default transport (node:http, keep-alive
 * agent) against the same client over Node's fetch, interleaved rounds against one Fastify server
 * in a child process (its CPU is not counted). Calls: a send (POST /v1/messages) and a one-entry
 * sync page, `--concurrency` in flight.
 *   tools/bench/run.sh client-transport [--requests 4000] [--concurrency 64] [--rounds 3]
 */
import { QimClient } from '@qim/client';
import { entryJson, hex, messageJson, syncJson } from '@qim/client/testing';
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import fastify from 'fastify';
import { flag, measureInFlight } from './in-flight';
import type { InFlightMeasure } from './in-flight';

const T = hex(0x7e),
  ALICE = hex(0xa1),
  CONV = hex(0xc0);

async function serve(): Promise<void> {
  const app = fastify();
  const page = syncJson([entryJson(5n, messageJson(CONV, 5, ALICE, 'x'.repeat(100)))], 5n, false);
  app.post('/v1/messages', async (req) => ({
    conversation_id: CONV,
    seq: '7',
    message_id: hex(0x777),
    created_at: '1700000000123',
    replay: false,
    client: (req.body as { client_message_id: string }).client_message_id,
  }));
  app.get('/v1/mailboxes/:user/entries', async () => page);
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  process.send?.(url);
}

function measure(client: QimClient, kind: 'send' | 'sync', requests: number, concurrency: number): Promise<InFlightMeasure> {
  const body = new Uint8Array(100);
  return measureInFlight(
    () => (kind === 'send' ? client.send({ conversationId: CONV, body }) : client.syncPage({ after: 4n, limit: 500 })),
    requests,
    concurrency,
  );
}

async function main(): Promise<void> {
  const requests = flag('requests', 4000),
    concurrency = flag('concurrency', 64),
    rounds = flag('rounds', 3);
  const child = fork(process.argv[1]!, ['--serve'], { stdio: 'inherit' });
  const url = await new Promise<string>((resolve) => child.once('message', (m) => resolve(String(m))));
  const options = { writerUrl: url, mailboxUrl: url, token: 'bench', tenantId: T, userId: ALICE, retry: { attempts: 1 } };
  const clients = { 'node:http': new QimClient({ ...options, maxSockets: concurrency }), fetch: new QimClient({ ...options, fetch: globalThis.fetch }) };
  for (const c of Object.values(clients)) await measure(c, 'send', 500, concurrency); // warm-up: JIT and connections
  console.log(`${requests} requests × ${rounds} rounds, ${concurrency} in flight; client CPU µs per request (requests/s)`);
  for (let r = 1; r <= rounds; r++) {
    for (const kind of ['send', 'sync'] as const) {
      const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
      const got: Record<string, InFlightMeasure> = {};
      for (const [name, c] of Object.entries(clients)) got[name] = await measure(c, kind, requests, concurrency);
      const h = got['node:http']!,
        f = got['fetch']!;
      console.log(
        `round ${r} ${kind}: node:http ${h.usPerCall.toFixed(0)} µs (${h.perSecond.toFixed(0)}/s)  ` +
          `fetch ${f.usPerCall.toFixed(0)} µs (${f.perSecond.toFixed(0)}/s)  ratio ${(h.usPerCall / f.usPerCall).toFixed(2)}  load ${load}`,
      );
    }
  }
  child.kill();
}

void (process.argv.includes('--serve') ? serve() : main()).catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
