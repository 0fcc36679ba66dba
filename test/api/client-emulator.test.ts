import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createServiceClient } from '../../src/api/client.js';
import type { ServiceClient } from '../../src/api/client.js';
import { HttpStatusError, OutcomeUnknownError } from '../../src/api/errors.js';
import { startEmulator } from '@station-agent/emulator';
import type { RunningEmulator } from '@station-agent/emulator';
import { tempDir } from '../helpers/paths.js';
import { expectNoSecret } from './test-server.js';

/**
 * Every endpoint of the client against the local service over a real socket:
 * what one writes, the other reads back.
 */

const TOKEN = 'emu-station-T0KEN-1';
const ADMIN = 'emu-admin-S3CRET';
const BLACKBIRD = { scientificName: 'Turdus merula', commonName: 'Eurasian Blackbird' };

/** A FLAC stream header (fLaC + STREAMINFO): what the service reads for sample rate and duration. */
function flacHeader(sampleRate: number, seconds: number): Buffer {
  const info = Buffer.alloc(34);
  info.writeUInt16BE(4096, 0);
  info.writeUInt16BE(4096, 2);
  const packed = (BigInt(sampleRate) << 44n) | (0n << 41n) | (15n << 36n) | BigInt(sampleRate * seconds);
  info.writeBigUInt64BE(packed, 10);
  return Buffer.concat([Buffer.from('fLaC', 'latin1'), Buffer.from([0x80, 0x00, 0x00, 34]), info]);
}

/** An ISO 8601 instant with an explicit offset, `minutesAgo` before now (millisecond precision). */
function isoWithOffset(minutesAgo: number, offsetMinutes = 120): string {
  const at = new Date(Math.floor(Date.now() / 1000) * 1000 - minutesAgo * 60_000 + offsetMinutes * 60_000);
  const sign = offsetMinutes >= 0 ? '+' : '-';
  const hh = String(Math.floor(Math.abs(offsetMinutes) / 60)).padStart(2, '0');
  const mm = String(Math.abs(offsetMinutes) % 60).padStart(2, '0');
  return `${at.toISOString().slice(0, 23)}${sign}${hh}:${mm}`;
}

let emulator: RunningEmulator;
let client: ServiceClient;
let tmp: ReturnType<typeof tempDir>;

beforeAll(async () => {
  tmp = tempDir('api-emu-');
  emulator = await startEmulator({ port: 0, tokens: [TOKEN], adminToken: ADMIN });
  client = createServiceClient({ baseUrl: emulator.url, token: TOKEN, timeoutMs: 5_000 });
});
afterAll(async () => {
  await client.close();
  await emulator.close();
  tmp.cleanup();
});
afterEach(() => emulator.setFaults(null));

describe('round trip of every endpoint against the local service', () => {
  const soundscapeAt = isoWithOffset(10);
  let soundscapeId = 0;
  let detectionId = 0;
  let stationId = 0;
  let speciesId = 0;

  it('uploads a FLAC soundscape and gets its id, duration and sample rate back', async () => {
    const file = path.join(tmp.dir, 'soundscape.flac');
    writeFileSync(file, flacHeader(48_000, 15));
    const s = await client.uploadSoundscape({ timestamp: soundscapeAt, body: file });
    expect(s.id).toBeGreaterThan(0);
    expect(Date.parse(s.timestamp)).toBe(Date.parse(soundscapeAt));
    expect(s).toMatchObject({ duration: 15, sampleRate: 48_000 });
    soundscapeId = s.id;
    stationId = s.stationId;
  });

  it('posts a detection referencing the soundscape', async () => {
    const timestamp = new Date(Date.parse(soundscapeAt) + 3_000).toISOString();
    const d = await client.postDetection({
      timestamp,
      ...BLACKBIRD,
      lat: 52.09,
      lon: 5.12,
      confidence: 0.93,
      soundscapeId,
      soundscapeStartTime: 3,
      soundscapeEndTime: 6,
    });
    expect(d.id).toBeGreaterThan(0);
    expect(d.species.scientificName).toBe(BLACKBIRD.scientificName);
    expect(d.soundscape?.id).toBe(soundscapeId);
    expect(d.confidence).toBeCloseTo(0.93);
    detectionId = d.id;
    speciesId = d.species.id;
  });

  it('lists and reads the detection back (station-scoped and global)', async () => {
    const from = new Date(Date.parse(soundscapeAt) - 60_000).toISOString();
    const list = await client.listDetections({ from, limit: 10 });
    expect(list.detections.map((d) => d.id)).toContain(detectionId);
    const bySpecies = await client.listDetections({ speciesId, classification: 'avian' });
    expect(bySpecies.detections.map((d) => d.id)).toContain(detectionId);
    expect((await client.getDetection(detectionId)).soundscape).toMatchObject({ startTime: 3, endTime: 6 });
    expect((await client.getGlobalDetection(detectionId)).id).toBe(detectionId);
  });

  it('lists and reads the soundscape back, with its detections', async () => {
    const list = await client.listSoundscapes({ limit: 5, detections: true });
    const listed = list.soundscapes.find((s) => s.id === soundscapeId);
    expect(listed?.detections?.map((d) => d.id)).toContain(detectionId);
    const one = await client.getSoundscape(soundscapeId, { detections: true });
    expect(one.id).toBe(soundscapeId);
    expect(one.detections?.map((d) => d.id)).toEqual([detectionId]);
  });

  it('counts it in the stats and the station species listing', async () => {
    const stats = await client.stats({ period: 'day' });
    expect(stats.detections).toBeGreaterThanOrEqual(1);
    expect(stats.species).toBeGreaterThanOrEqual(1);
    const species = await client.listStationSpecies({ period: 'day', sort: 'top' });
    expect(species.species.find((s) => s.id === speciesId)?.detections.total).toBeGreaterThanOrEqual(1);
  });

  it('reads the species: info and lookup', async () => {
    expect((await client.getSpecies(speciesId)).scientificName).toBe(BLACKBIRD.scientificName);
    const key = `${BLACKBIRD.scientificName}_${BLACKBIRD.commonName}`;
    const res = await client.lookupSpecies([key]);
    expect(res.species[key]?.id).toBe(speciesId);
  });

  it('updates the config and refuses an out-of-range value with 422', async () => {
    const station = await client.updateConfig({ name: 'Garden', minConfidence: 0.5, locationPrivacy: true });
    expect(station).toMatchObject({ id: stationId, name: 'Garden', minConfidence: 0.5, locationPrivacy: true });
    const err = await client.updateConfig({ minConfidence: 0.1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HttpStatusError);
    expect(err).toMatchObject({ status: 422 });
  });

  it('admin mode reaches the same station by id', async () => {
    const admin = createServiceClient({ baseUrl: emulator.url, adminToken: ADMIN, stationId });
    try {
      const list = await admin.listDetections({ limit: 5 });
      expect(list.detections.map((d) => d.id)).toContain(detectionId);
    } finally {
      await admin.close();
    }
  });
});

describe('the service refusing, and faults', () => {
  it('422 for an unknown species, with the errors object', async () => {
    const err = await client.postDetection({ timestamp: isoWithOffset(5), scientificName: 'Nonexistus fictus', commonName: 'Fiction Bird' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HttpStatusError);
    expect(err).toMatchObject({ status: 422 });
    expect(Object.keys((err as HttpStatusError).errors ?? {})).not.toHaveLength(0);
  });

  it('a WAV upload: 415 although the body says success: true', async () => {
    const file = path.join(tmp.dir, 'a.wav');
    writeFileSync(file, Buffer.concat([Buffer.from('RIFF\x24\x00\x00\x00WAVEfmt ', 'latin1'), Buffer.alloc(40)]));
    const err = await client.uploadSoundscape({ timestamp: isoWithOffset(5), body: file, contentType: 'audio/wav' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HttpStatusError);
    expect(err).toMatchObject({ status: 415 });
  });

  it('an unknown token is refused without the token leaking into the error', async () => {
    const wrong = 'wrong-T0KEN-zzz';
    const other = createServiceClient({ baseUrl: emulator.url, token: wrong });
    try {
      const err = await other.stats().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(HttpStatusError);
      expect([401, 403, 404]).toContain((err as HttpStatusError).status);
      expectNoSecret(err, wrong);
    } finally {
      await other.close();
    }
  });

  it('a dropped connection after the service stored the detection: outcome unknown, and it is there', async () => {
    emulator.setFaults({ drop: 1, paths: 'detections' });
    const timestamp = isoWithOffset(4);
    const err = await client.postDetection({ timestamp, ...BLACKBIRD, confidence: 0.81 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutcomeUnknownError);
    expectNoSecret(err, TOKEN);
    emulator.setFaults(null);
    const found = await client.listDetections({ from: timestamp, to: timestamp });
    expect(found.detections.some((d) => Math.abs(d.confidence - 0.81) < 1e-6)).toBe(true);
  });

  it('a 429 fault carries Retry-After', async () => {
    emulator.setFaults({ rate429: 1, retryAfterSec: 7 });
    const err = await client.postDetection({ timestamp: isoWithOffset(3), ...BLACKBIRD }).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 429, retryAfterMs: 7_000 });
  });

  it('a held request: outcome unknown after the timeout', async () => {
    emulator.setFaults({ timeout: 1 });
    const err = await client.postDetection({ timestamp: isoWithOffset(2), ...BLACKBIRD }, { timeoutMs: 300 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutcomeUnknownError);
    expect(err).toMatchObject({ cause_code: 'ERR_DEADLINE' });
  });
});
