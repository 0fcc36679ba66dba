import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/index.js';
import { startMetricsServer, type MetricsServer } from '../../src/metrics/index.js';
import type { RuntimeSnapshot } from '../../src/runtime/snapshot.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { tempQueue } from '../queue/helpers.js';

/**
 * deploy/: the Grafana dashboards and the Prometheus rules query only metrics the agent
 * really exports. The names come from the agent's own metrics server, started on a real
 * queue and scraped over HTTP (every family it serves, with the series a histogram or a
 * summary adds), not from a list kept by hand.
 */

const DEPLOY = path.join(REPO_ROOT, 'deploy');
const PROMQL_KEYWORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'and', 'or', 'unless', 'bool', 'offset', 'inf', 'nan']);

/**
 * The metric names a PromQL expression (or a Grafana query) selects: identifiers that are
 * not functions, keywords, label names, label values, durations or Grafana variables.
 */
export function metricNames(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""') // strings (label values)
    .replace(/\{[^}]*\}/g, '') // label matchers
    .replace(/\[[^\]]*\]/g, '') // range and subquery durations
    .replace(/\$\{?\w+\}?/g, '') // Grafana variables: $station, $__rate_interval
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ') // label lists
    .replace(/\blabel_values\(\s*([a-zA-Z_:][\w:]*)\s*,[^)]*\)/g, ' $1 '); // a variable's label
  const names = new Set<string>();
  for (const m of stripped.matchAll(/[a-zA-Z_:][\w:]*/g)) {
    const after = stripped.slice(m.index + m[0].length).trimStart();
    const before = stripped[m.index - 1] ?? ' ';
    if (after.startsWith('(') || PROMQL_KEYWORDS.has(m[0].toLowerCase()) || /[\w.]/.test(before)) continue;
    names.add(m[0]);
  }
  return [...names];
}

/** Every `expr:` of a Prometheus rule file, one-line or a `|` block. */
function ruleExpressions(text: string): string[] {
  const lines = text.split('\n');
  const exprs: string[] = [];
  lines.forEach((line, i) => {
    const m = /^(\s*)expr:\s*(.*)$/.exec(line);
    if (!m) return;
    if (m[2] !== '|' && m[2] !== '>') {
      exprs.push(m[2]);
      return;
    }
    const block: string[] = [];
    for (let j = i + 1; j < lines.length && (lines[j].trim() === '' || lines[j].search(/\S/) > m[1].length); j++) block.push(lines[j]);
    exprs.push(block.join('\n'));
  });
  return exprs;
}

/** Every Prometheus query of a Grafana dashboard: its panels' targets and its query variables. */
function dashboardQueries(dashboard: unknown): string[] {
  const found: string[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        if ((key === 'expr' || key === 'query' || key === 'definition') && typeof value === 'string' && value !== 'prometheus') found.push(value);
        else walk(value);
      }
    }
  };
  walk(dashboard);
  return found;
}

const files = (dir: string, suffix: string) =>
  readdirSync(path.join(DEPLOY, dir))
    .filter((f) => f.endsWith(suffix) && !f.endsWith('.test.yml'))
    .map((f) => path.join(DEPLOY, dir, f));

const now = Date.now();
const snapshot: RuntimeSnapshot = {
  pid: process.pid,
  startedAt: now,
  updatedAt: now,
  uploader: { inFlight: 0, concurrencyLimit: 4, circuit: 'closed', circuitRetryAt: null, probes: 0, paused: [], lastSuccessAt: now, lastError: null },
  watcher: { ready: true, pending: 0, dir: '/analyzer/out' },
  clock: 'synchronized',
  disk: { freeBytes: 1e9, spoolBytes: 0, low: false },
  configSync: { state: 'synced', at: now },
  mqtt: { connected: true, broker: 'mqtt://broker', lastPublishAt: now, lastError: null },
};

let exported: Set<string>;
/** What the apt repository's release-metrics.txt serves (scripts/lib/release-metrics.sh, run here): the rules and the fleet dashboard compare the stations with it. */
let released: Set<string>;
const queue = tempQueue();
let server: MetricsServer;

beforeAll(async () => {
  server = await startMetricsServer({ listen: '127.0.0.1:0', queue: queue.q, snapshot: () => snapshot, log: createLogger({ level: 'silent' }) });
  const text = await (await fetch(`${server.url}/metrics`)).text();
  exported = new Set();
  for (const m of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    const [, name, type] = m;
    exported.add(name);
    if (type === 'histogram') for (const s of ['_bucket', '_sum', '_count']) exported.add(name + s);
    if (type === 'summary') for (const s of ['_sum', '_count']) exported.add(name + s);
  }
  const release = execFileSync('bash', ['-c', 'source scripts/lib/release-metrics.sh && release_metrics'], { cwd: REPO_ROOT, input: 'stable 0.2.0 1764633600\ntesting 0.3.0~rc1 1764720000\n' }).toString();
  expect(release).toContain('{suite="testing",version="0.3.0~rc1"} 1764720000');
  released = new Set([...release.matchAll(/^# TYPE (\S+) gauge$/gm)].map((m) => m[1]));
});
afterAll(async () => {
  await server?.close();
  queue.cleanup();
});

describe('deploy/ queries only what the agent exports', () => {
  it('reads metric names out of PromQL (and would catch a wrong one)', () => {
    expect(metricNames('sum by (kind, state) (rate(station_agent_uploads_total{kind="recording",state=~"a|b"}[5m])) > 0')).toEqual(['station_agent_uploads_total']);
    expect(metricNames('histogram_quantile(0.9, sum by (le) (rate(x_bucket{station="$station"}[$__rate_interval])))')).toEqual(['x_bucket']);
    expect(metricNames('a == 0 and ignoring (stage) increase(b{stage="connect"}[15m]) > 0 or vector(0)')).toEqual(['a', 'b']);
    expect(metricNames('time() - station_agent_bogus_seconds offset 5m')).toEqual(['station_agent_bogus_seconds']);
    expect(metricNames('label_values(station_agent_watcher_ready, station)')).toEqual(['station_agent_watcher_ready']);
    expect(exported.has('station_agent_bogus_seconds')).toBe(false);
  });

  it('the agent serves its own metrics and the default process metrics', () => {
    for (const name of ['station_agent_queue_items', 'station_agent_disk_low', 'station_agent_upload_duration_seconds_bucket', 'station_agent_build_info', 'process_resident_memory_bytes']) {
      expect(exported, name).toContain(name);
    }
  });

  it('every Prometheus rule names only exported metrics', () => {
    const rules = files('prometheus', '.rules.yml');
    expect(rules.length).toBeGreaterThan(0);
    for (const file of rules) {
      const text = readFileSync(file, 'utf8');
      const exprs = ruleExpressions(text);
      expect(exprs.length, file).toBe((text.match(/^\s*- (alert|record):/gm) ?? []).length);
      for (const expr of exprs) {
        const names = metricNames(expr);
        expect(names.length, expr).toBeGreaterThan(0);
        expect(names.filter((n) => !exported.has(n) && !released.has(n)), `${path.basename(file)}: ${expr}`).toEqual([]);
      }
    }
  });

  it('every Grafana dashboard query names only exported metrics', () => {
    const dashboards = files('grafana', '.json');
    expect(dashboards.map((f) => path.basename(f)).sort()).toEqual(['station-agent-fleet.json', 'station-agent-station.json']);
    for (const file of dashboards) {
      const queries = dashboardQueries(JSON.parse(readFileSync(file, 'utf8')));
      expect(queries.length, file).toBeGreaterThan(5);
      for (const q of queries) expect(metricNames(q).filter((n) => !exported.has(n) && !released.has(n)), `${path.basename(file)}: ${q}`).toEqual([]);
    }
  });
});
