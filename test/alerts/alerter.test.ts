import { describe, expect, it } from 'vitest';
import { Alerter } from '../../src/alerts/alerter.js';
import { activeConditions, type AlertCondition } from '../../src/alerts/conditions.js';

const paused: AlertCondition = { key: 'uploads-paused:token-rejected', event: 'uploads-paused', reason: 'token-rejected', message: 'uploads paused' };
const MIN = 60_000;

describe('Alerter', () => {
  it('fires only after the condition held holdMs, and resolves only after it was clear holdMs', () => {
    const a = new Alerter({ holdMs: 5 * MIN, minIntervalMs: 60 * MIN });
    expect(a.evaluate([paused], 0).notices).toEqual([]);
    expect(a.evaluate([paused], 4 * MIN).notices).toEqual([]);
    expect(a.evaluate([paused], 5 * MIN).notices).toMatchObject([{ state: 'firing', since: 0, at: 5 * MIN }]);
    expect(a.evaluate([paused], 6 * MIN).notices).toEqual([]);
    expect(a.evaluate([], 7 * MIN).notices).toEqual([]);
    expect(a.evaluate([], 12 * MIN).notices).toMatchObject([{ state: 'resolved', since: 7 * MIN, message: 'recovered: uploads paused' }]);
  });

  it('a short outage below holdMs sends nothing at all, not even a resolved notice', () => {
    const a = new Alerter({ holdMs: 5 * MIN, minIntervalMs: 0 });
    a.evaluate([paused], 0);
    expect(a.evaluate([], 2 * MIN).notices).toEqual([]);
    expect(a.evaluate([], 20 * MIN).notices).toEqual([]);
    expect(a.state).toEqual({});
  });

  it('a flapping link fires at most once per minIntervalMs', () => {
    const a = new Alerter({ holdMs: 0, minIntervalMs: 60 * MIN });
    const sent: string[] = [];
    for (let m = 0; m < 120; m += 2) {
      const on = m % 4 === 0;
      for (const n of a.evaluate(on ? [paused] : [], m * MIN).notices) sent.push(`${m}:${n.state}`);
    }
    expect(sent.filter((s) => s.endsWith('firing'))).toEqual(['0:firing', '60:firing']);
    expect(sent.filter((s) => s.endsWith('resolved'))).toEqual(['2:resolved', '62:resolved']);
  });

  it('picks up its records after a restart: no second firing, the resolved notice still comes', () => {
    const a = new Alerter({ holdMs: 0, minIntervalMs: 0 });
    a.evaluate([paused], 0);
    const restarted = new Alerter({ holdMs: 0, minIntervalMs: 0 }, JSON.parse(JSON.stringify(a.state)));
    expect(restarted.evaluate([paused], MIN).notices).toEqual([]);
    expect(restarted.evaluate([], 2 * MIN).notices).toMatchObject([{ state: 'resolved' }]);
  });
});

describe('activeConditions', () => {
  const base = { now: 10 * 3_600_000, waiting: 3, quietSince: 0, linkOpen: true, noUploadMs: 6 * 3_600_000, paused: [], disk: { low: false, freeBytes: 1e9, minFreeMb: 200 } };

  it('no-uploads only while items wait, the link is open and the quiet time is long enough', () => {
    expect(activeConditions(base).map((c) => c.key)).toEqual(['no-uploads']);
    expect(activeConditions({ ...base, waiting: 0 })).toEqual([]);
    expect(activeConditions({ ...base, linkOpen: false })).toEqual([]);
    expect(activeConditions({ ...base, quietSince: 5 * 3_600_000 })).toEqual([]);
  });

  it('one condition per pause reason, and disk low', () => {
    const keys = activeConditions({ ...base, waiting: 0, paused: [{ reason: 'token-rejected', message: 'HTTP 401' }, { reason: 'clock-unsynchronized', message: 'x' }], disk: { low: true, freeBytes: 1024 * 1024, minFreeMb: 200 } }).map((c) => c.key);
    expect(keys).toEqual(['uploads-paused:token-rejected', 'uploads-paused:clock-unsynchronized', 'disk-low']);
  });
});

describe('docs/OPERATOR.md alerts table', () => {
  it('lists every event the code can fire, and the pause reasons the uploader has', async () => {
    const { readFileSync } = await import('node:fs');
    const path = await import('node:path');
    const { REPO_ROOT } = await import('../helpers/paths.js');
    const { ALERT_EVENTS } = await import('../../src/alerts/conditions.js');
    const doc = readFileSync(path.join(REPO_ROOT, 'docs/OPERATOR.md'), 'utf8');
    const section = doc.slice(doc.indexOf('## Alerts'));
    const rows = [...section.matchAll(/^\| `([a-z-]+)` \| (?:`([a-z-]+)`)? *\|/gm)].map((m) => [m[1], m[2] ?? null]);
    expect([...new Set(rows.map((r) => r[0]))].sort()).toEqual([...ALERT_EVENTS].sort());
    const reasons = rows.filter((r) => r[0] === 'uploads-paused').map((r) => r[1]);
    // The uploader's pause reasons (decide.ts) and its clock hold.
    expect(reasons.sort()).toEqual(['clock-unsynchronized', 'soundscape-format-rejected', 'token-rejected']);
  });
});
