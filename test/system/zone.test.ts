import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { DateTime, IANAZone } from 'luxon';
import { beforeAll, describe, expect, it } from 'vitest';
import { zoneOffset } from '../../src/system/zone.js';
import { buildCli } from '../helpers/cli.js';
import { REPO_ROOT } from '../helpers/paths.js';

const HOUR = 3_600_000;

/** Upload windows across both DST nights of Europe/Berlin: one in the spring gap, one up to midnight. */
const WINDOWS = ['01:30-03:30', '22:00-24:00'];

/** Every 20 minutes through the two DST nights of 2026 in Europe, and a summer evening. */
function windowInstants(): number[] {
  const out: number[] = [];
  for (const night of [Date.UTC(2026, 2, 28, 18), Date.UTC(2026, 9, 24, 18), Date.UTC(2026, 6, 1, 18)]) {
    for (let t = night; t <= night + 12 * HOUR; t += HOUR / 3) out.push(t);
  }
  return out;
}

/** Whether an upload window is open at `t`, by luxon's local time in `zone`: the answer the windows must give. */
function openByLuxon(t: number, zone: string): boolean {
  const local = DateTime.fromMillis(t, { zone });
  const minute = local.hour * 60 + local.minute;
  return (minute >= 90 && minute < 210) || minute >= 22 * 60;
}

/** Instants every 15 minutes around both 2026 transitions in Europe, then weekly over 2000-2040. */
function instants(): number[] {
  const out: number[] = [];
  for (const day of [Date.UTC(2026, 2, 29), Date.UTC(2026, 9, 25), Date.UTC(2026, 2, 8), Date.UTC(2026, 10, 1)]) {
    for (let t = day - 6 * HOUR; t <= day + 12 * HOUR; t += HOUR / 4) out.push(t);
  }
  for (let t = Date.UTC(2000, 0, 1, 12); t < Date.UTC(2040, 0, 1); t += 7 * 24 * HOUR) out.push(t);
  return out;
}

describe('zoneOffset', () => {
  it('UTC by any of its names is 0 at every instant', () => {
    for (const name of ['UTC', 'utc', 'GMT', 'Etc/UTC', 'Etc/GMT']) {
      const offset = zoneOffset(name);
      for (const t of [0, Date.UTC(2026, 5, 1), Date.UTC(2026, 11, 31, 23)]) expect(offset(t), name).toBe(0);
    }
  });

  it("another zone than the system's answers as luxon does, half-hour offsets and transitions included", () => {
    for (const name of ['America/St_Johns', 'Australia/Lord_Howe', 'Asia/Kolkata']) {
      if (name === process.env.TZ) continue;
      const offset = zoneOffset(name);
      const luxon = IANAZone.create(name);
      for (const t of instants()) expect(offset(t), `${name} at ${new Date(t).toISOString()}`).toBe(luxon.offset(t));
    }
    expect(zoneOffset('UTC+2')(0)).toBe(120);
  });

  it('refuses an unknown zone by its name', () => {
    expect(() => zoneOffset('Mars/Olympus_Mons')).toThrow(new RangeError('unknown time zone "Mars/Olympus_Mons" (expected an IANA name such as "Europe/Berlin")'));
  });
});

/**
 * A station whose `station.timezone` is the system's (the default): the compiled agent in a
 * process whose `TZ` is that zone reads local names, a result file's own start and writes
 * the service's timestamps from JavaScript's local time. It never builds an `Intl.DateTimeFormat` (counted by
 * wrapping it) nor loads luxon, and answers exactly as luxon does, DST gap and overlap
 * included.
 */
describe("the system's own zone, in a process of its own", () => {
  beforeAll(async () => {
    await buildCli();
  }, 180_000);

  const run = (tz: string | undefined, zone: string) => {
    const url = (file: string) => JSON.stringify(pathToFileURL(path.join(REPO_ROOT, 'dist', file)).href);
    const script = `
      const Original = Intl.DateTimeFormat;
      let formats = 0;
      Intl.DateTimeFormat = function (...args) { formats++; return new Original(...args); };
      const { createRequire } = await import('node:module');
      const { zoneOffset, systemZoneName, localTimeInZone } = await import(${url('system/zone.js')});
      const { formatServiceTimestamp, recordingStartFromName, resolveRecordingStart } = await import(${url('ingest/recording-time.js')});
      const zone = process.argv[1];
      const instants = JSON.parse(process.argv[2]);
      const offset = zoneOffset(zone);
      const offsets = instants.map((t) => offset(t));
      const gap = localTimeInZone({ year: 2026, month: 3, day: 29, hour: 2, minute: 30, second: 0 }, zone).toISOString();
      const overlap = localTimeInZone({ year: 2026, month: 10, day: 25, hour: 2, minute: 30, second: 0 }, zone).toISOString();
      const named = recordingStartFromName('2026-07-01-birdnet-06:15:00.wav', zone).toISOString();
      const stamp = formatServiceTimestamp(new Date(Date.UTC(2026, 6, 1, 4, 15)), zone);
      // A result file's own start (sidecar, analyzerpi JSON), its offset without a colon.
      const sidecar = resolveRecordingStart({ zone, fileName: 'x.wav', sidecarStart: '2026-07-01T06:15:00.250+0200', now: new Date(Date.UTC(2026, 6, 2)) }).start.toISOString();
      // Upload windows and the daily data budget (upload/windows.ts, upload/data-budget.ts).
      const { UploadWindows } = await import(${url('upload/windows.js')});
      const { localDay, dayAfter } = await import(${url('upload/data-budget.js')});
      const windows = new UploadWindows(${JSON.stringify(WINDOWS)}, zone);
      const windowStates = ${JSON.stringify(windowInstants())}.map((t) => windows.state(t));
      const days = ${JSON.stringify(windowInstants())}.map((t) => localDay(t, zone));
      const queueDay = localDay('2026-07-01T23:30:00.000+00:00', zone);
      const renewals = ['2026-03-28', '2026-10-24', '2026-12-31'].map((d) => dayAfter(d, zone));
      const luxonLoaded = Object.keys(createRequire(import.meta.url).cache).some((f) => f.includes('/node_modules/luxon/'));
      console.log(JSON.stringify({ system: systemZoneName(), formats, luxonLoaded, offsets, gap, overlap, named, stamp, sidecar, windowStates, days, queueDay, renewals }));`;
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH };
    if (tz !== undefined) env.TZ = tz;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script, zone, JSON.stringify(instants())], { encoding: 'utf8', env, timeout: 30_000 });
    return JSON.parse(out) as {
      system: string | null;
      formats: number;
      luxonLoaded: boolean;
      offsets: number[];
      gap: string;
      overlap: string;
      named: string;
      stamp: string;
      sidecar: string;
      windowStates: { open: boolean; changesAt: number | null }[];
      days: string[];
      queueDay: string;
      renewals: number[];
    };
  };

  it('Europe/Berlin under TZ=Europe/Berlin: no Intl formatter, no luxon, the same offsets as luxon', () => {
    const r = run('Europe/Berlin', 'Europe/Berlin');
    expect(r).toMatchObject({ system: 'Europe/Berlin', formats: 0, luxonLoaded: false });
    const luxon = IANAZone.create('Europe/Berlin');
    expect(r.offsets).toEqual(instants().map((t) => luxon.offset(t)));
    // The offset before the change: 02:30 in the spring gap at winter time, the first 02:30 of the autumn night.
    expect(r.gap).toBe('2026-03-29T01:30:00.000Z');
    expect(r.overlap).toBe('2026-10-25T00:30:00.000Z');
    expect(r.named).toBe('2026-07-01T04:15:00.000Z');
    expect(r.stamp).toBe('2026-07-01T06:15:00.000+02:00');
    expect(r.sidecar).toBe('2026-07-01T04:15:00.250Z');
    // Upload windows open as luxon's local time says, and each change is announced at the
    // instant the state flips (the first boundary where it does).
    const ts = windowInstants();
    expect(r.windowStates.map((w) => w.open)).toEqual(ts.map((t) => openByLuxon(t, 'Europe/Berlin')));
    r.windowStates.forEach((w, i) => {
      const at = new Date(ts[i]).toISOString();
      expect(w.changesAt, at).not.toBeNull();
      expect(w.changesAt! > ts[i], at).toBe(true);
      expect(openByLuxon(w.changesAt!, 'Europe/Berlin'), at).toBe(!w.open);
      expect(openByLuxon(w.changesAt! - 60_000, 'Europe/Berlin'), at).toBe(w.open);
    });
    // The data budget's days and renewals: local dates and midnights, 23 and 25 hour days included.
    expect(r.days).toEqual(ts.map((t) => DateTime.fromMillis(t, { zone: 'Europe/Berlin' }).toISODate()));
    expect(r.queueDay).toBe('2026-07-02');
    expect(r.renewals).toEqual(['2026-03-28', '2026-10-24', '2026-12-31'].map((d) => DateTime.fromISO(d, { zone: 'Europe/Berlin' }).plus({ days: 1 }).toMillis()));
  });

  it('TZ with a leading colon names the same zone', () => {
    expect(run(':America/New_York', 'America/New_York')).toMatchObject({ system: 'America/New_York', formats: 0, luxonLoaded: false, stamp: '2026-07-01T00:15:00.000-04:00' });
  });

  it("a zone other than the system's goes through luxon, with the same answers", () => {
    const r = run('Europe/Berlin', 'America/New_York');
    expect(r.luxonLoaded).toBe(true);
    const luxon = IANAZone.create('America/New_York');
    expect(r.offsets).toEqual(instants().map((t) => luxon.offset(t)));
    expect(r.stamp).toBe('2026-07-01T00:15:00.000-04:00');
  });

  it.skipIf(!existsSync('/etc/localtime') || !lstatSync('/etc/localtime').isSymbolicLink())('without TZ, the zone /etc/localtime links to', () => {
    const name = /\/zoneinfo\/(?:posix\/)?(.+)$/.exec(readlinkSync('/etc/localtime'))?.[1];
    expect(run(undefined, 'UTC').system).toBe(name ?? null);
  });
});
