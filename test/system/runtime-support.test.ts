import { describe, expect, it } from 'vitest';
import { ENDING_WITHIN_DAYS, NODE_RELEASE_LINES, runtimeSupport } from '../../src/system/runtime-support.js';

describe('runtimeSupport: the Node.js release lines and their end of life', () => {
  it('says a line is supported, ending, or ended by its end-of-life day (UTC)', () => {
    expect(runtimeSupport('20.20.2', Date.parse('2025-11-01T00:00:00Z'))).toMatchObject({ major: 20, state: 'supported' });
    expect(runtimeSupport('v20.20.2', Date.parse('2026-03-01T00:00:00Z'))).toMatchObject({ version: '20.20.2', state: 'ending', daysLeft: 61 });
    // The end-of-life day itself is still supported; the day after is not.
    expect(runtimeSupport('20.0.0', Date.parse('2026-04-30T23:59:00Z'))).toMatchObject({ state: 'ending', daysLeft: 0 });
    expect(runtimeSupport('20.0.0', Date.parse('2026-05-01T00:00:00Z'))).toMatchObject({ state: 'ended', daysLeft: 0 });
    expect(runtimeSupport('20.20.2', Date.parse('2026-12-01T00:00:00Z'))).toMatchObject({ state: 'ended', daysLeft: -214 });
    expect(runtimeSupport('24.11.0', Date.parse('2026-12-01T00:00:00Z'))).toMatchObject({ state: 'supported', line: { lts: true, endOfLife: '2028-04-30' } });
    expect(runtimeSupport('99.0.0')).toMatchObject({ state: 'unknown', line: null, daysLeft: null });
  });

  it('keeps one entry per line, even lines LTS, each ending after the one before of its kind', () => {
    const majors = NODE_RELEASE_LINES.map((l) => l.major);
    expect(majors).toEqual([...majors].sort((a, b) => a - b));
    expect(new Set(majors).size).toBe(majors.length);
    for (const l of NODE_RELEASE_LINES) {
      expect(l.lts, `line ${l.major}`).toBe(l.major % 2 === 0);
      expect(l.endOfLife).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    }
    const lts = NODE_RELEASE_LINES.filter((l) => l.lts).map((l) => l.endOfLife);
    expect(lts).toEqual([...lts].sort());
    expect(ENDING_WITHIN_DAYS).toBeGreaterThan(0);
  });

  it('knows the line this process runs on (the test\'s Node is one the agent supports running on)', () => {
    expect(runtimeSupport().state).not.toBe('unknown');
  });
});
