import {
  commitStepDelta,
  kafkaRequestDelta,
  kafkaRequestsPerMessage,
  parseCommitSteps,
  parseKafkaRequests,
  parseLoopDelay,
  parseStages,
  stageDelta,
} from './stages';

const exposition = (routed: number[], shard0: number[], shard1: number[]): string => {
  const bounds = ['0.01', '0.05', '0.1', '+Inf'];
  const lines = ['# HELP qim_delivery_stage_seconds x', '# TYPE qim_delivery_stage_seconds histogram'];
  bounds.forEach((le, i) => lines.push(`qim_delivery_stage_seconds_bucket{le="${le}",stage="routed"} ${routed[i]}`));
  lines.push(`qim_delivery_stage_seconds_sum{stage="routed"} 1`, `qim_delivery_stage_seconds_count{stage="routed"} ${routed[3]}`);
  lines.push('# TYPE qim_dispatch_lag_seconds histogram');
  bounds.forEach((le, i) => lines.push(`qim_dispatch_lag_seconds_bucket{le="${le}",shard="0"} ${shard0[i]}`));
  bounds.forEach((le, i) => lines.push(`qim_dispatch_lag_seconds_bucket{le="${le}",shard="1"} ${shard1[i]}`));
  return lines.join('\n');
};
const withCommits = (text: string, router: number, shard: number): string =>
  `${text}\nqim_kafka_offset_commit_requests_total{role="router",result="ok"} ${router}\n` +
  `qim_kafka_offset_commit_requests_total{role="shard",result="ok"} ${shard}\n` +
  'qim_kafka_offset_commit_requests_total{role="shard",result="failed"} 1';

describe('delivery stages from the mailbox histograms', () => {
  it('takes the difference of two scrapes, sums the shards and interpolates inside the bucket', () => {
    const before = parseStages(exposition([0, 0, 0, 0], [5, 5, 5, 5], [0, 0, 0, 0]));
    const after = parseStages(exposition([0, 100, 100, 100], [5, 55, 105, 105], [0, 0, 100, 100]));
    const d = stageDelta(before, after);
    // routed: all 100 between 10 and 50 ms → p50 at the middle of that bucket, p99 near its top.
    expect(d.routed).toEqual({ count: 100, p50: 30, p99: 49.6 });
    // visible: 200 new (shard 0: 50 in 10–50 ms, 50 in 50–100; shard 1: 100 in 50–100 ms).
    expect(d.visible.count).toBe(200);
    expect(d.visible.p50).toBe(66.7);
    expect(d.visible.p99).toBe(99.3);
    expect(d.applying).toEqual({ count: 0, p50: null, p99: null });
  });

  it('counts the OffsetCommit requests of every role between two scrapes (absent counter: none yet)', () => {
    const none = parseStages(exposition([0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]));
    expect(none.offsetCommits).toBe(0);
    const later = parseStages(withCommits(exposition([0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]), 40, 25));
    expect(stageDelta(none, later).offsetCommits).toBe(66);
    expect(() => stageDelta(later, none)).toThrow('OffsetCommit requests went down');
  });

  it('counts the sync scans read and skipped between two scrapes (absent counter: none yet)', () => {
    const none = parseStages(exposition([0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]));
    expect(none.syncScans).toEqual({ read: 0, skipped: 0 });
    const later = parseStages(
      `${exposition([0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0])}\nqim_sync_scans_total{result="read",service="mailbox"} 30\n` +
        'qim_sync_scans_total{result="skipped",service="mailbox"} 12',
    );
    expect(stageDelta(none, later).syncScans).toEqual({ read: 30, skipped: 12 });
    expect(() => stageDelta(later, none)).toThrow('sync scans went down');
  });

  it('counts the reads the read budget shrank and refused between two scrapes (absent counter: none yet)', () => {
    const none = parseStages(exposition([0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]));
    expect(none.readBudget).toEqual({ shrunk: 0, refused: 0 });
    const later = parseStages(
      `${exposition([0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0])}\nqim_read_budget_shrunk_total{service="mailbox"} 17\n` + 'qim_read_budget_refused_total 3',
    );
    expect(stageDelta(none, later).readBudget).toEqual({ shrunk: 17, refused: 3 });
    expect(() => stageDelta(later, none)).toThrow('read budget counters went down');
  });

  it('sums the mailbox entries written over the shards between two scrapes (expired ones not counted)', () => {
    const none = parseStages(exposition([0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]));
    expect(none.entriesWritten).toBe(0);
    const later = parseStages(
      `${exposition([0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0])}\nqim_mailbox_entries_total{shard="0",state="written",service="mailbox"} 30\n` +
        'qim_mailbox_entries_total{shard="7",state="written"} 12\n' +
        'qim_mailbox_entries_total{shard="7",state="expired"} 5',
    );
    expect(later.entriesWritten).toBe(42);
    expect(stageDelta(none, later).entriesWritten).toBe(42);
    expect(() => stageDelta(later, none)).toThrow('entries written went down');
  });

  it('reports a quantile beyond the last finite bucket as Infinity, and refuses counters that went down', () => {
    const before = parseStages(exposition([0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]));
    const slow = parseStages(exposition([0, 0, 0, 10], [0, 0, 0, 0], [0, 0, 0, 0]));
    expect(stageDelta(before, slow).routed.p50).toBe(Infinity);
    expect(() => stageDelta(slow, before)).toThrow('went down');
  });
});

describe("a service's event-loop delay from its metrics", () => {
  it('reads p99 and max in ms, with or without labels, and null when absent', () => {
    const text = [
      'nodejs_eventloop_lag_max_seconds{service="writer"} 0.0838',
      'nodejs_eventloop_lag_p99_seconds{service="writer"} 0.0166',
      'nodejs_eventloop_lag_p50_seconds{service="writer"} 0.0102',
    ].join('\n');
    expect(parseLoopDelay(text)).toEqual({ p99: 16.6, max: 83.8 });
    expect(parseLoopDelay('nodejs_eventloop_lag_p99_seconds 0.5\nnodejs_eventloop_lag_max_seconds 1.25')).toEqual({ p99: 500, max: 1250 });
    expect(parseLoopDelay('qim_sync_scans_total{result="read"} 3')).toBeNull();
  });
});

describe("the writer's commit steps from its metrics", () => {
  const steps = (reserve: number[], publish: number[]): string => {
    const bounds = ['0.001', '0.01', '0.1', '+Inf'];
    const lines = ['# HELP qim_commit_step_seconds x', '# TYPE qim_commit_step_seconds histogram'];
    bounds.forEach((le, i) => lines.push(`qim_commit_step_seconds_bucket{le="${le}",service="writer",step="reserve"} ${reserve[i]}`));
    bounds.forEach((le, i) => lines.push(`qim_commit_step_seconds_bucket{le="${le}",service="writer",step="publish"} ${publish[i]}`));
    lines.push('qim_commit_step_seconds_count{service="writer",step="reserve"} 1');
    return lines.join('\n');
  };

  it('takes the difference of two scrapes per step; a step without samples has no quantiles', () => {
    const before = parseCommitSteps(steps([1, 1, 1, 1], [0, 0, 0, 0]))!;
    const after = parseCommitSteps(steps([51, 101, 101, 101], [0, 0, 100, 100]))!;
    const d = commitStepDelta(before, after);
    // reserve: 50 new below 1 ms, 50 in 1–10 ms → p50 at the top of the first bucket.
    expect(d.reserve).toEqual({ count: 100, p50: 1, p99: 9.8 });
    expect(d.publish).toEqual({ count: 100, p50: 55, p99: 99.1 });
    expect(d.record).toEqual({ count: 0, p50: null, p99: null });
    expect(() => commitStepDelta(after, before)).toThrow('commit step reserve went down');
  });

  it('is null for a writer without the histogram', () => {
    expect(parseCommitSteps('qim_commits_total{outcome="committed"} 3')).toBeNull();
  });
});

describe('Kafka requests per client and API (qim_kafka_requests_total)', () => {
  const text = (outboxProduce: number, routerFetch: number) =>
    [
      '# TYPE qim_kafka_requests_total counter',
      `qim_kafka_requests_total{client="outbox",api="Produce",service="writer"} ${outboxProduce}`,
      `qim_kafka_requests_total{client="router",api="Fetch",service="mailbox"} ${routerFetch}`,
      'qim_kafka_requests_total{client="router",api="Heartbeat",service="mailbox"} 3',
    ].join('\n');

  it('reads the counters by client and API, and takes the difference of two scrapes of both services', () => {
    expect(parseKafkaRequests(text(10, 4))).toEqual(
      new Map([
        ['outbox Produce', 10],
        ['router Fetch', 4],
        ['router Heartbeat', 3],
      ]),
    );
    const d = kafkaRequestDelta([parseKafkaRequests(text(10, 4))], [parseKafkaRequests(text(25, 9))]);
    expect(d).toEqual({ 'outbox Produce': 15, 'router Fetch': 5, 'router Heartbeat': 0 });
  });

  it('counts a client that appeared between the scrapes from 0, and fails loudly on a counter that went down (a restart)', () => {
    const d = kafkaRequestDelta([new Map()], [parseKafkaRequests(text(2, 1))]);
    expect(d['outbox Produce']).toBe(2);
    expect(() => kafkaRequestDelta([parseKafkaRequests(text(5, 4))], [parseKafkaRequests(text(4, 4))])).toThrow('Kafka requests of outbox Produce went down');
  });

  it('sums the requests per message by API for the report, clients named', () => {
    expect(
      kafkaRequestsPerMessage({ 'outbox Produce': 50, 'dispatch Produce': 30, 'router Fetch': 20, 'shards OffsetCommit': 4, 'router Heartbeat': 1 }, 100),
    ).toBe('Produce 0.80 (outbox 0.50, dispatch 0.30) · Fetch 0.20 (router 0.20) · OffsetCommit 0.04 (shards 0.04) · other 0.01');
    expect(kafkaRequestsPerMessage({}, 0)).toBe('–');
  });
});
