#!/usr/bin/env node
// Writes qim-dashboard.json (Grafana, schema 39) from the panel list below: one place to edit,
// a deterministic output. `node docker/monitoring/build-dashboard.mjs` rewrites it;
// `--check` exits 1 when the committed file is stale (tools/ci's monitoring spec runs it).
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const out = join(dirname(fileURLToPath(import.meta.url)), 'qim-dashboard.json');
const ds = { type: 'prometheus', uid: '${datasource}' };

/** [title, unit, [[legend, expr], …]] per panel; rows of panels, each row three wide. */
const rows = [
  [
    'Writer',
    [
      ['Sends by outcome (per s)', 'reqps', [['{{outcome}}', 'sum by (outcome) (rate(qim_commits_total[1m]))']]],
      ['Commit step p99', 's', [['{{step}}', 'histogram_quantile(0.99, sum by (le, step) (rate(qim_commit_step_seconds_bucket[5m])))']]],
      ['Sends past their deadline (per s)', 'reqps', [['{{instance}}', 'sum by (instance) (rate(qim_send_deadline_exceeded_total[5m]))']]],
      ['Admission gate closed', 'short', [['{{instance}}', 'max by (instance) (qim_admission_closed)']]],
      ['Delivery lag read by the gate', 's', [['{{group}}', 'max by (group) (qim_delivery_lag_seconds)']]],
      [
        'Partitions left out of admission',
        'short',
        [
          ['stalled {{group}}', 'max by (group) (qim_delivery_stalled_partitions)'],
          ['replaying {{group}}', 'max by (group) (qim_delivery_replaying_partitions)'],
        ],
      ],
      ['Held sends by outcome (per s)', 'reqps', [['{{outcome}}', 'sum by (outcome) (rate(qim_admission_waits_total[1m]))']]],
      ['Writer-id lease held', 'short', [['{{instance}}', 'min by (instance) (qim_writer_lease_held)']]],
      ['Recovery actions (per s)', 'ops', [['{{result}}', 'sum by (result) (rate(qim_recovery_actions_total[5m]))']]],
      ['Housekeeping backlog', 'short', [['{{kind}}', 'max by (kind) (qim_housekeeping_backlog)']]],
    ],
  ],
  [
    'Mailbox',
    [
      [
        'Stalled or refused shards',
        'short',
        [
          ['stalled {{shard}}', 'max by (shard) (qim_shard_stalled)'],
          ['refused {{shard}}', 'max by (shard) (qim_shard_refused)'],
        ],
      ],
      [
        'Send → visible p99 (dispatch lag)',
        's',
        [
          ['p99', 'histogram_quantile(0.99, sum by (le) (rate(qim_dispatch_lag_seconds_bucket[5m])))'],
          ['p50', 'histogram_quantile(0.5, sum by (le) (rate(qim_dispatch_lag_seconds_bucket[5m])))'],
        ],
      ],
      ['Mailbox entries (per s)', 'ops', [['{{state}}', 'sum by (state) (rate(qim_mailbox_entries_total[1m]))']]],
      ['Page apply p99', 's', [['shard {{shard}}', 'histogram_quantile(0.99, sum by (le, shard) (rate(qim_mailbox_page_seconds_bucket[5m])))']]],
      ['Dead-lettered records (per s)', 'ops', [['{{role}}', 'sum by (role) (rate(qim_poison_records_total[5m]))']]],
      [
        'Consumer crashes and joins (per 5 m)',
        'short',
        [
          ['crashes {{role}}', 'sum by (role) (increase(qim_consumer_crashes_total[5m]))'],
          ['joins {{role}}', 'sum by (role) (increase(qim_consumer_joins_total[5m]))'],
        ],
      ],
      ['Shard frontier', 'short', [['shard {{shard}}', 'max by (shard) (qim_shard_frontier)']]],
      ['Sync scans (per s)', 'ops', [['{{result}}', 'sum by (result) (rate(qim_sync_scans_total[1m]))']]],
      [
        'HTTP p99 by route',
        's',
        [['{{job}} {{route}}', 'histogram_quantile(0.99, sum by (le, job, route) (rate(qim_http_request_duration_seconds_bucket[5m])))']],
      ],
    ],
  ],
];

let id = 0;
let y = 0;
const panels = [];
for (const [title, list] of rows) {
  panels.push({ id: ++id, type: 'row', title, collapsed: false, gridPos: { h: 1, w: 24, x: 0, y: y++ }, panels: [] });
  list.forEach(([ptitle, unit, targets], i) => {
    panels.push({
      id: ++id,
      type: 'timeseries',
      title: ptitle,
      datasource: ds,
      fieldConfig: { defaults: { unit }, overrides: [] },
      options: { legend: { displayMode: 'list', placement: 'bottom' }, tooltip: { mode: 'multi' } },
      gridPos: { h: 8, w: 8, x: (i % 3) * 8, y: y + Math.floor(i / 3) * 8 },
      targets: targets.map(([legendFormat, expr], t) => ({ refId: String.fromCharCode(65 + t), datasource: ds, expr, legendFormat })),
    });
  });
  y += Math.ceil(list.length / 3) * 8;
}

const dashboard = {
  title: 'QIM store',
  uid: 'qim-store',
  schemaVersion: 39,
  version: 1,
  editable: true,
  tags: ['qim'],
  time: { from: 'now-1h', to: 'now' },
  refresh: '10s',
  templating: { list: [{ name: 'datasource', type: 'datasource', query: 'prometheus', label: 'Prometheus' }] },
  annotations: { list: [] },
  panels,
};
const text = `${JSON.stringify(dashboard, null, 2)}\n`;
if (process.argv.includes('--check')) {
  let current = '';
  try {
    current = readFileSync(out, 'utf8');
  } catch {
    /* missing counts as stale */
  }
  if (current !== text) {
    console.error('docker/monitoring/qim-dashboard.json is stale: node docker/monitoring/build-dashboard.mjs');
    process.exit(1);
  }
} else {
  writeFileSync(out, text);
}
