import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { QimArgumentError, QimForbiddenError, QimResyncRequiredError, QimTransportError } from '../errors/qim-error';
import type { SyncPage } from '../model/mailbox-model';
import { QimClient } from '../qim-client';
import { entryJson, hex, messageJson, syncJson } from '../testing/wire-fixtures';
import { sseEvents } from './sync-stream';

const T = hex(0x7e),
  BOB = hex(0xb0),
  CONV = hex(0xc0);
const PATH = `/v1/mailboxes/${BOB}/stream`;

async function* chunks(...parts: string[]): AsyncGenerator<string> {
  for (const p of parts) yield p;
}

async function all<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe('sseEvents', () => {
  it('splits events however the text is cut into chunks, and joins data lines', async () => {
    const text = 'event: page\ndata: {"a":1}\n\n: a comment\n\nevent: end\ndata: one\ndata: two\n\n';
    for (let cut = 0; cut <= text.length; cut++) {
      expect(await all(sseEvents(chunks(text.slice(0, cut), text.slice(cut))))).toEqual([
        { event: 'page', data: '{"a":1}' },
        { event: 'end', data: 'one\ntwo' },
      ]);
    }
  });

  it('drops a last event cut off before its blank line', async () => {
    expect(await all(sseEvents(chunks('event: page\ndata: 1\n\nevent: page\ndata: 2\n')))).toEqual([{ event: 'page', data: '1' }]);
  });
});

/** A mailbox service that answers the stream route with what a test writes (status, then events). */
class StreamServer {
  readonly requests: { url: string; headers: http.IncomingHttpHeaders }[] = [];
  private readonly server: http.Server;
  gone = 0;
  constructor(handler: (res: http.ServerResponse, url: URL) => void) {
    this.server = http.createServer((req, res) => {
      this.requests.push({ url: req.url ?? '', headers: req.headers });
      res.once('close', () => {
        if (!res.writableFinished) this.gone++;
      });
      handler(res, new URL(req.url ?? '/', 'http://x'));
    });
  }
  async start(): Promise<string> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }
}

const page = (seq: number, next = BigInt(seq)): string =>
  `event: page\ndata: ${JSON.stringify(syncJson([entryJson(BigInt(seq), messageJson(CONV, seq, BOB, `m${seq}`))], next, false))}\n\n`;
const sse = (res: http.ServerResponse): void => void res.writeHead(200, { 'content-type': 'text/event-stream' });

describe('QimClient.stream', () => {
  let server: StreamServer;
  const client = (url: string, fetchImpl?: typeof fetch) =>
    new QimClient({ writerUrl: url, mailboxUrl: url, token: 'secret-token', tenantId: T, userId: BOB, ...(fetchImpl ? { fetch: fetchImpl } : {}) });
  afterEach(() => server.close());

  it('yields each page event as a SyncPage read after the previous page, and returns at the end event', async () => {
    server = new StreamServer((res) => {
      sse(res);
      res.write(page(1));
      res.write(page(2).slice(0, 10));
      res.write(page(2).slice(10));
      res.end(`event: end\ndata: {"next_after":"2"}\n\n`);
    });
    const url = await server.start();
    const pages: SyncPage[] = await all(client(url).stream({ after: 0n, limit: 7 }));
    expect(pages.map((p) => [p.after, p.entries.map((e) => e.seq), p.nextAfter])).toEqual([
      [0n, [1n], 1n],
      [1n, [2n], 2n],
    ]);
    expect(server.requests[0]!.url).toBe(`${PATH}?after=0&limit=7`);
    const sent = { accept: 'text/event-stream', authorization: 'Bearer secret-token', 'x-qim-tenant': T, 'x-qim-user': BOB };
    expect(server.requests[0]!.headers).toMatchObject(sent);
  });

  it('throws the typed error of a refusal at the start (410 → resync) and of an error event later', async () => {
    server = new StreamServer((res, url) => {
      if (url.searchParams.get('after') === '0') {
        res.writeHead(410, { 'content-type': 'application/json' });
        return void res.end(JSON.stringify({ code: 'CURSOR_EXPIRED', message: 'below the trim', resync: true }));
      }
      sse(res);
      res.write(page(5));
      res.end(`event: error\ndata: ${JSON.stringify({ status: 403, code: 'FORBIDDEN', message: 'not yours' })}\n\n`);
    });
    const url = await server.start();
    await expect(all(client(url).stream({ after: 0n }))).rejects.toBeInstanceOf(QimResyncRequiredError);
    const pages: SyncPage[] = [];
    const failed = (async () => {
      for await (const p of client(url).stream({ after: 4n })) pages.push(p);
    })();
    await expect(failed).rejects.toBeInstanceOf(QimForbiddenError);
    expect(pages.map((p) => p.nextAfter)).toEqual([5n]);
  });

  it('fails with QimTransportError when the stream is cut before its end event', async () => {
    server = new StreamServer((res) => {
      sse(res);
      res.write(page(1));
      setTimeout(() => res.destroy(), 20);
    });
    const url = await server.start();
    const pages: SyncPage[] = [];
    const run = (async () => {
      for await (const p of client(url).stream()) pages.push(p);
    })();
    await expect(run).rejects.toBeInstanceOf(QimTransportError);
    expect(pages).toHaveLength(1);
  });

  it('ends quietly on abort and closes the connection', async () => {
    server = new StreamServer((res) => {
      sse(res);
      res.write(page(1));
    });
    const url = await server.start();
    const stop = new AbortController();
    const pages: SyncPage[] = [];
    for await (const p of client(url).stream({ signal: stop.signal })) {
      pages.push(p);
      stop.abort();
    }
    expect(pages).toHaveLength(1);
    const deadline = Date.now() + 2_000;
    while (server.gone === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    expect(server.gone).toBe(1);
  });

  it('needs the node:http transport (a client given a fetch refuses it)', async () => {
    server = new StreamServer((res) => res.end());
    const url = await server.start();
    await expect(all(client(url, fetch).stream())).rejects.toBeInstanceOf(QimArgumentError);
    expect(server.requests).toHaveLength(0);
  });
});
