import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { IANAZone } from 'luxon';
import { beforeAll, describe, expect, it } from 'vitest';
import { zoneOffset } from '../../src/system/zone.js';
import { buildCli } from '../helpers/cli.js';
import { REPO_ROOT } from '../helpers/paths.js';

const HOUR = 3_600_000;

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
      const { zoneOffset, systemZoneName } = await import(${url('system/zone.js')});
      const { localTimeInZone, formatServiceTimestamp, recordingStartFromName, resolveRecordingStart } = await import(${url('ingest/recording-time.js')});
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
      const luxonLoaded = Object.keys(createRequire(import.meta.url).cache).some((f) => f.includes('/node_modules/luxon/'));
      console.log(JSON.stringify({ system: systemZoneName(), formats, luxonLoaded, offsets, gap, overlap, named, stamp, sidecar }));`;
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH };
    if (tz !== undefined) env.TZ = tz;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script, zone, JSON.stringify(instants())], { encoding: 'utf8', env, timeout: 30_000 });
    return JSON.parse(out) as { system: string | null; formats: number; luxonLoaded: boolean; offsets: number[]; gap: string; overlap: string; named: string; stamp: string; sidecar: string };
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
