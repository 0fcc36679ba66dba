import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import {
  detectionTimestamp,
  formatServiceTimestamp,
  implausibility,
  recordingStartFromMetadata,
  recordingStartFromName,
  resolveRecordingStart,
} from '../../src/ingest/recording-time.js';
import { readWavInfo } from '../../src/audio/wav.js';
import { localTimeInZone } from '../../src/system/zone.js';
import { realFixture } from '../helpers/paths.js';

const BERLIN = 'Europe/Berlin';
const fmt = (d: Date | undefined, zone = BERLIN) => (d ? formatServiceTimestamp(d, zone) : undefined);

describe('recordingStartFromName', () => {
  it.each([
    // AudioMoth: UTC by convention
    ['20240501_060000.WAV', '2024-05-01T08:00:00.000+02:00'],
    ['24526B065D325963_20200404_102500.WAV', '2020-04-04T12:25:00.000+02:00'],
    // Song Meter: naive local
    ['SMM01234_20240501_060000.wav', '2024-05-01T06:00:00.000+02:00'],
    ['S4A01234_20240101_235959.wav', '2024-01-01T23:59:59.000+01:00'],
    ['C:/Users/x/test_audio\\14_01_20210213_210000.WAV', '2021-02-13T21:00:00.000+01:00'],
    // analyzerpi: naive local
    ['2024-02-24-birdnet-16:19:37.wav', '2024-02-24T16:19:37.000+01:00'],
    ['/home/pi/BirdSongs/StreamData/2024-05-01-birdnet-RTSP_1-06:00:00.wav', '2024-05-01T06:00:00.000+02:00'],
    // ISO-like, naive local or with offset
    ['2024-05-01T06-00-00.wav', '2024-05-01T06:00:00.000+02:00'],
    ['station-a_2024-05-01T06:00:00.flac', '2024-05-01T06:00:00.000+02:00'],
    ['20240501T060000Z.flac', '2024-05-01T08:00:00.000+02:00'],
    ['20240501T060000.wav', '2024-05-01T06:00:00.000+02:00'],
    ['rec_2024-05-01T06-00-00+03-00.wav', '2024-05-01T05:00:00.000+02:00'],
    ['2024-05-01T06-00-00+0530.wav', '2024-05-01T02:30:00.000+02:00'],
    ['2024-05-01T06:00:00.250Z.wav', '2024-05-01T08:00:00.250+02:00'],
    ['2024-05-01T06-00-00-04.wav', '2024-05-01T12:00:00.000+02:00'],
  ])('%s -> %s', (name, expected) => {
    expect(fmt(recordingStartFromName(name, BERLIN))).toBe(expected);
  });

  it.each(['soundscape.wav', 'metadata.wav', 'Pica pica_30s.wav', '20241301_060000.WAV', '20240431_060000.WAV', '2024-05-01T25-00-00.wav'])(
    '%s has no start in its name',
    (name) => {
      expect(recordingStartFromName(name, BERLIN)).toBeUndefined();
    },
  );

  it('reads AudioMoth names in a configured zone when asked', () => {
    expect(fmt(recordingStartFromName('20240501_060000.WAV', BERLIN, { audioMothZone: BERLIN }))).toBe('2024-05-01T06:00:00.000+02:00');
    expect(fmt(recordingStartFromName('20240501_060000.WAV', BERLIN, { audioMothZone: 'UTC+3' }))).toBe('2024-05-01T05:00:00.000+02:00');
  });

  it('returns the instant as a Date', () => {
    expect(recordingStartFromName('20240501_060000.WAV', BERLIN)).toEqual(new Date('2024-05-01T06:00:00Z'));
  });

  it('rejects an unknown zone', () => {
    expect(() => recordingStartFromName('20240501_060000.WAV', 'Mars/Olympus')).toThrow('unknown time zone "Mars/Olympus"');
  });
});

describe('daylight saving time in Europe/Berlin', () => {
  it.each([
    // spring forward 2024-03-31 02:00 -> 03:00
    ['SMM_20240331_015959.wav', '2024-03-31T01:59:59.000+01:00'],
    ['SMM_20240331_020000.wav', '2024-03-31T03:00:00.000+02:00'], // gap: 02:00+01:00
    ['SMM_20240331_023000.wav', '2024-03-31T03:30:00.000+02:00'], // gap: 02:30+01:00
    ['SMM_20240331_030000.wav', '2024-03-31T03:00:00.000+02:00'],
    // fall back 2024-10-27 03:00 -> 02:00
    ['SMM_20241027_015959.wav', '2024-10-27T01:59:59.000+02:00'],
    ['SMM_20241027_020000.wav', '2024-10-27T02:00:00.000+02:00'], // overlap: the earlier (first) one
    ['SMM_20241027_023000.wav', '2024-10-27T02:30:00.000+02:00'],
    ['SMM_20241027_025959.wav', '2024-10-27T02:59:59.000+02:00'],
    ['SMM_20241027_030000.wav', '2024-10-27T03:00:00.000+01:00'],
  ])('%s -> %s', (name, expected) => {
    expect(fmt(recordingStartFromName(name, BERLIN))).toBe(expected);
  });

  it('gives the overlap instant in UTC and counts detection offsets across the change', () => {
    const start = localTimeInZone({ year: 2024, month: 10, day: 27, hour: 2, minute: 59, second: 0 }, BERLIN)!;
    expect(start.toISOString()).toBe('2024-10-27T00:59:00.000Z');
    expect(detectionTimestamp(start, 120, BERLIN)).toBe('2024-10-27T02:01:00.000+01:00');
    expect(detectionTimestamp(start, 1.5, BERLIN)).toBe('2024-10-27T02:59:01.500+02:00');
  });

  it('a naive GUANO timestamp follows the same rule', () => {
    expect(fmt(recordingStartFromMetadata({ guano: { Timestamp: '2024-10-27T02:30:00' } }, BERLIN))).toBe('2024-10-27T02:30:00.000+02:00');
  });
});

describe('recordingStartFromMetadata', () => {
  it('reads the comment of the real AudioMoth recording (older firmware, "(UTC)")', async () => {
    // Through the shipped reader, as ingest reads it.
    const { comment } = await readWavInfo(realFixture('opensoundscape_8b582152', 'metadata.wav'));
    expect(comment).toBe(
      'Recorded at 10:25:00 04/04/2020 (UTC) by AudioMoth 24526B065D325963 at gain setting 2 while battery state was 4.7V.',
    );
    expect(fmt(recordingStartFromMetadata({ comment }, 'UTC'), 'UTC')).toBe('2020-04-04T10:25:00.000+00:00');
    expect(fmt(recordingStartFromMetadata({ comment }, BERLIN))).toBe('2020-04-04T12:25:00.000+02:00');
  });

  it.each([
    [
      'Recorded at 19:38:00 14/03/2021 (UTC+1) by AudioMoth 247AA5075E3A2CE1 at medium gain while battery was 4.5V and temperature was 18.3C.',
      '2021-03-14T18:38:00.000+00:00',
    ],
    ['Recorded at 06:00:00 01/05/2024 (UTC-3:30) by AudioMoth 247AA5075E3A2CE1 at low gain.', '2024-05-01T09:30:00.000+00:00'],
    ['Recorded at 23:59:59 31/12/2023 (UTC+10) by AudioMoth 1234.', '2023-12-31T13:59:59.000+00:00'],
  ])('AudioMoth comment %s', (comment, expected) => {
    expect(fmt(recordingStartFromMetadata({ comment }, 'UTC'), 'UTC')).toBe(expected);
  });

  it('reads the GUANO Timestamp with or without offset, as fields or as GUANO text', () => {
    expect(fmt(recordingStartFromMetadata({ guano: { Timestamp: '2024-05-01T06:00:00' } }, BERLIN))).toBe('2024-05-01T06:00:00.000+02:00');
    expect(fmt(recordingStartFromMetadata({ guano: { Timestamp: '2024-05-01T06:00:00.5-04:00' } }, 'UTC'), 'UTC')).toBe(
      '2024-05-01T10:00:00.500+00:00',
    );
    expect(fmt(recordingStartFromMetadata({ guano: 'GUANO|Version: 1.0\nMake: Wildlife Acoustics\nTimestamp: 2024-05-01 06:00:00Z\n' }, BERLIN))).toBe(
      '2024-05-01T08:00:00.000+02:00',
    );
  });

  it('prefers the AudioMoth comment, falls back to GUANO, and gives up on anything else', () => {
    const guano = { Timestamp: '2024-05-01T06:00:00Z' };
    expect(fmt(recordingStartFromMetadata({ comment: 'Recorded at 10:25:00 04/04/2020 (UTC) by AudioMoth', guano }, 'UTC'), 'UTC')).toBe(
      '2020-04-04T10:25:00.000+00:00',
    );
    expect(fmt(recordingStartFromMetadata({ comment: 'a field recording', guano }, 'UTC'), 'UTC')).toBe('2024-05-01T06:00:00.000+00:00');
    expect(recordingStartFromMetadata({ comment: 'a field recording', guano: { Timestamp: 'yesterday' } }, 'UTC')).toBeUndefined();
    expect(recordingStartFromMetadata({}, 'UTC')).toBeUndefined();
  });
});

/** resolveRecordingStart where the test gives a source: undefined would be a failure. */
function resolve(input: Parameters<typeof resolveRecordingStart>[0]) {
  const start = resolveRecordingStart(input);
  if (!start) throw new Error(`no recording start for ${JSON.stringify(input)}`);
  return start;
}

describe('resolveRecordingStart', () => {
  const now = new Date('2024-06-01T00:00:00Z');
  const mtime = new Date('2024-05-01T04:01:00Z');
  const comment = 'Recorded at 04:00:00 01/05/2024 (UTC) by AudioMoth 1234.';

  it('prefers the sidecar, then the file name, then the metadata, then mtime minus duration', () => {
    const base = { zone: BERLIN, mtime, durationSec: 60, now };
    const sidecar = resolve({ ...base, fileName: '20240501_050000.WAV', sidecarStart: '2024-05-01T06:00:00.000+02:00', metadata: { comment } });
    expect([sidecar.source, fmt(sidecar.start), sidecar.implausible]).toEqual(['sidecar', '2024-05-01T06:00:00.000+02:00', false]);

    const byName = resolve({ ...base, fileName: '20240501_050000.WAV', metadata: { comment } });
    expect([byName.source, fmt(byName.start)]).toEqual(['filename', '2024-05-01T07:00:00.000+02:00']);

    const byMetadata = resolve({ ...base, fileName: 'metadata.wav', metadata: { comment } });
    expect([byMetadata.source, fmt(byMetadata.start)]).toEqual(['metadata', '2024-05-01T06:00:00.000+02:00']);

    const byMtime = resolve({ ...base, fileName: 'metadata.wav', metadata: { comment: 'no time here' } });
    expect([byMtime.source, fmt(byMtime.start)]).toEqual(['mtime', '2024-05-01T06:00:00.000+02:00']);
  });

  it('tries each candidate name in order: the audio, the name a result gives, the result\'s own base name', () => {
    const start = resolve({ zone: BERLIN, fileName: ['soundscape.wav', 'ST_20260603_041600.wav'], now: new Date('2026-07-01T00:00:00Z') });
    expect([start.source, fmt(start.start)]).toEqual(['filename', '2026-06-03T04:16:00.000+02:00']);
  });

  it('finds no start without a time in the result, the names or the metadata and without audio: never "now"', () => {
    expect(resolveRecordingStart({ zone: BERLIN, fileName: ['nightly.wav'], metadata: { comment: 'no time here' }, now })).toBeUndefined();
  });

  it('flags implausible starts instead of using them silently', () => {
    const unset = resolve({ zone: 'UTC', fileName: '19700101_000012.WAV', mtime, now });
    expect(unset).toMatchObject({ source: 'filename', implausible: true });
    expect(unset.implausibleReason).toBe('recording start 1970-01-01T00:00:12.000+00:00 is before 2020-01-01 (device clock not set?)');

    const future = resolveRecordingStart({ zone: 'UTC', fileName: '20240602_000001.WAV', mtime, now });
    expect(future).toMatchObject({ implausible: true, implausibleReason: 'recording start 2024-06-02T00:00:01.000+00:00 is more than a day in the future' });

    expect(resolve({ zone: 'UTC', fileName: '20240602_000000.WAV', mtime, now }).implausible).toBe(false);
    expect(implausibility(new Date('2020-01-01T00:00:00Z'), now)).toBeUndefined();
    expect(implausibility(new Date('2019-12-31T23:59:59Z'), now, BERLIN)).toBe(
      'recording start 2020-01-01T00:59:59.000+01:00 is before 2020-01-01 (device clock not set?)',
    );
    expect(implausibility(new Date('2024-05-01T00:00:00Z'), now)).toBeUndefined();
    expect(implausibility(new Date('2024-06-02T00:00:01Z'), now)).toBe('recording start 2024-06-02T00:00:01.000+00:00 is more than a day in the future');
    expect(implausibility(new Date('not a date'), now)).toBe('recording start is not a valid time');
  });
});

describe('formatServiceTimestamp and detectionTimestamp', () => {
  it('formats with milliseconds in the station offset (Date or luxon DateTime)', () => {
    expect(formatServiceTimestamp(DateTime.fromISO('2024-05-01T04:00:00Z'), BERLIN)).toBe('2024-05-01T06:00:00.000+02:00');
    const d = new Date('2024-05-01T04:00:00.123Z');
    expect(formatServiceTimestamp(d, BERLIN)).toBe('2024-05-01T06:00:00.123+02:00');
    expect(formatServiceTimestamp(d, 'UTC')).toBe('2024-05-01T04:00:00.123+00:00');
    expect(formatServiceTimestamp(d, 'America/St_Johns')).toBe('2024-05-01T01:30:00.123-02:30');
    expect(formatServiceTimestamp(new Date('2024-01-15T12:00:00Z'), BERLIN)).toBe('2024-01-15T13:00:00.000+01:00');
  });

  it('adds the detection start (seconds, rounded to the millisecond) to the recording start', () => {
    const start = new Date('2024-05-01T04:00:00Z');
    expect(detectionTimestamp(start, 0, BERLIN)).toBe('2024-05-01T06:00:00.000+02:00');
    expect(detectionTimestamp(start, 117, BERLIN)).toBe('2024-05-01T06:01:57.000+02:00');
    expect(detectionTimestamp(start, 0.1 + 0.2, BERLIN)).toBe('2024-05-01T06:00:00.300+02:00');
  });
});

describe('wall-clock fields read without luxon', () => {
  // The fields luxon's DateTime.fromObject judged (and the code used before): impossible
  // ones are refused the same way, 24:00:00.000 is the next midnight, years below 100 stay.
  const cases: [number, number, number, number, number, number, number][] = [
    [2024, 2, 29, 12, 0, 0, 0],
    [2023, 2, 29, 12, 0, 0, 0],
    [2024, 4, 31, 6, 0, 0, 0],
    [2024, 13, 1, 0, 0, 0, 0],
    [2024, 0, 1, 0, 0, 0, 0],
    [2024, 5, 0, 0, 0, 0, 0],
    [2024, 5, 1, 25, 0, 0, 0],
    [2024, 5, 1, 24, 0, 0, 0],
    [2024, 12, 31, 24, 0, 0, 0],
    [2024, 5, 1, 24, 0, 1, 0],
    [2024, 5, 1, 23, 60, 0, 0],
    [2024, 5, 1, 23, 59, 60, 0],
    [2024, 5, 1, 23, 59, 59, 999],
    [50, 1, 1, 0, 0, 0, 0],
    [1900, 2, 29, 0, 0, 0, 0],
    [2000, 2, 29, 0, 0, 0, 0],
  ];
  it.each(cases)('%i-%i-%i %i:%i:%i.%i at +02:00 and in UTC as luxon reads it', (year, month, day, hour, minute, second, millisecond) => {
    const fields = { year, month, day, hour, minute, second, millisecond };
    const luxon = DateTime.fromObject(fields, { zone: 'utc' });
    const expected = luxon.isValid ? luxon.toMillis() : undefined;
    expect(localTimeInZone(fields, 'UTC')?.getTime()).toBe(expected);
    const name = `${String(year).padStart(4, '0')}-${pad(month)}-${pad(day)}T${pad(hour)}-${pad(minute)}-${pad(second)}.${String(millisecond).padStart(3, '0')}+02-00.wav`;
    expect(recordingStartFromName(name, BERLIN)?.getTime()).toBe(expected === undefined ? undefined : expected - 2 * 3_600_000);
  });
});

const pad = (n: number) => String(n).padStart(2, '0');
