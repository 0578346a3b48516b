import { NO_RETRY, QimError } from '@qim/client';
import { hex, scyllaOverrides } from './support/e2e-env';
import { ServiceStack } from './support/service-stack';

/**
 * Bounded pressure on the database (issue 15): a conversation of 10,000 members (the default
 * `QIM_MAX_FANOUT`) gets two messages through the real services. Required: every member's mailbox
 * gets both entries; the mailbox's consumers never crash or rejoin while the dispatch applies (no
 * driver saturation turned into a consumer restart); devices syncing meanwhile are answered 200 every
 * time (no 503, no driver text) within a bounded time. Run on Redis and on Cassandra.
 */
const MEMBERS = 10_000;
const SYNC_BOUND_MS = 5_000; // generous: the CI machine is a loaded 2-core box; today's p99 is far lower

interface Metric {
  readonly name: string;
  readonly labels: string;
  readonly value: number;
}

async function metrics(base: string): Promise<Metric[]> {
  const text = await (await fetch(`${base}/metrics`)).text();
  return text
    .split('\n')
    .filter((l) => l.startsWith('qim_'))
    .map((l) => {
      const m = /^([a-z_]+)(\{[^}]*\})? (\S+)$/.exec(l);
      if (!m) throw new Error(`unparsable metric line: ${l}`);
      return { name: m[1]!, labels: m[2] ?? '', value: Number(m[3]) };
    });
}

const sum = (ms: readonly Metric[], name: string, labelPart = ''): number =>
  ms.filter((m) => m.name === name && m.labels.includes(labelPart)).reduce((a, m) => a + m.value, 0);

function p(values: readonly number[], q: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? 0;
}

describe.each([
  ['redis', {} as Record<string, string>],
  ['scylla (cassandra)', null],
])('a 10,000-member conversation on %s', (name, fixed) => {
  const stack = new ServiceStack(fixed ?? scyllaOverrides());
  const T = hex(0xb16);
  const CONV = hex(0xb16c0);
  const members = Array.from({ length: MEMBERS }, (_, i) => hex(0x100000 + i));
  const mailboxUrl = (): string => stack.mailboxUrl;

  beforeAll(async () => {
    await stack.up();
    // In four requests: 10,000 ids in one body exceed the default 256 KiB body limit.
    let count = 0;
    for (let i = 0; i < MEMBERS; i += 2_500) count = await stack.client(T, members[0]).addMembers(CONV, members.slice(i, i + 2_500));
    expect(count).toBe(MEMBERS);
  });
  afterAll(() => stack.down());

  it('applies both messages to every mailbox with no consumer restart, while syncs keep answering', async () => {
    const before = await metrics(mailboxUrl());
    const joinsBefore = sum(before, 'qim_consumer_joins_total');
    expect(joinsBefore).toBeGreaterThanOrEqual(2); // router + shard consumers joined at start-up

    // Devices: 16 members sync in a loop without retries (a 503 must be seen, not hidden).
    const stop = { done: false };
    const latencies: number[] = [];
    const failures: string[] = [];
    const devices = Array.from({ length: 16 }, async (_, d) => {
      const c = stack.client(T, members[d * 613], { retry: NO_RETRY });
      while (!stop.done) {
        const t0 = performance.now();
        try {
          await c.syncPage({ limit: 10 });
          latencies.push(performance.now() - t0);
        } catch (err) {
          failures.push(err instanceof QimError ? `${err.status} ${err.code}` : String(err));
        }
      }
    });

    const sender = stack.client(T, members[1]);
    const sent = [await sender.send({ conversationId: CONV, body: 'first to ten thousand' }), await sender.send({ conversationId: CONV, body: 'second' })];
    expect(sent.map((s) => s.seq)).toEqual([1n, 2n]);

    const deadline = Date.now() + 240_000;
    for (;;) {
      const written = sum(await metrics(mailboxUrl()), 'qim_mailbox_entries_total', 'state="written"');
      if (written >= 2 * MEMBERS) break;
      if (Date.now() > deadline) throw new Error(`only ${written} of ${2 * MEMBERS} entries written after 240 s`);
      await new Promise((r) => setTimeout(r, 250));
    }
    stop.done = true;
    await Promise.all(devices);

    // Every member (a sample of 200 spread over the whole range plus the edges) sees both entries.
    const sample = [0, MEMBERS - 1, ...Array.from({ length: 198 }, (_, i) => Math.floor((i * MEMBERS) / 198))];
    for (const i of sample) {
      const page = await stack.client(T, members[i]).syncPage({ limit: 10 });
      expect(page.entries.length).toBe(2);
    }

    const after = await metrics(mailboxUrl());
    expect(sum(after, 'qim_mailbox_entries_total', 'state="written"')).toBe(2 * MEMBERS);
    expect(sum(after, 'qim_consumer_crashes_total')).toBe(0);
    expect(sum(after, 'qim_consumer_joins_total')).toBe(joinsBefore);
    expect(failures).toEqual([]);
    expect(latencies.length).toBeGreaterThan(16);
    expect(p(latencies, 0.99)).toBeLessThan(SYNC_BOUND_MS);
    expect(stack.mailbox!.output).not.toMatch(/BusyConnectionError|requests are in-flight/);
    console.log(
      `[big-fanout] ${name}: ${latencies.length} syncs during the dispatch, p50 ${p(latencies, 0.5).toFixed(0)} ms, p99 ${p(latencies, 0.99).toFixed(0)} ms`,
    );
  });
});
