import { afterEach, describe, expect, test } from 'vitest';
import { makeFlac } from './flac-fixture.js';
import { detectionBody, startService, type TestService } from './helpers.js';

/**
 * The lies (faults/lies.ts): the 201 is the truth, what is served afterwards is not. Each
 * test uploads through the real socket and reads back through the station's read API,
 * holding every answer against `emulator.lies()`.
 */
let service: TestService;
afterEach(async () => service?.stop());

const FLAC = { 'content-type': 'audio/flac' };
const flac = makeFlac({ sampleRate: 48_000, samples: 48_000 * 15 });

async function uploadSoundscapes(n: number): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < n; i++) {
    const at = new Date(Date.UTC(2025, 5, 1, 3, i)).toISOString();
    const r = await service.post(`${service.station('/soundscapes')}?timestamp=${encodeURIComponent(at)}`, { body: flac, headers: FLAC });
    expect(r.status).toBe(201);
    ids.push(r.body.soundscape.id);
  }
  return ids;
}

const day = '?from=2025-06-01T00:00:00Z&to=2025-06-02T00:00:00Z&limit=100';
const soundscapes = async () => (await service.get(`${service.station('/soundscapes')}${day}`)).body.soundscapes;
const detections = async () => (await service.get(`${service.station('/detections')}${day}`)).body.detections;

describe('lies about accepted uploads', () => {
  test('lose-soundscape: answered 201 with its id, then neither listed nor served; its detections are still accepted', async () => {
    service = await startService({ faults: 'lose-soundscape=0.5' });
    const ids = await uploadSoundscapes(8);
    const lost = service.emulator.lies().filter((l) => l.fault === 'lose-soundscape').map((l) => l.id);
    expect(lost.length).toBeGreaterThan(0);
    expect(lost.length).toBeLessThan(8);
    const served = (await soundscapes()).map((s) => s.id);
    expect(served.sort()).toEqual(ids.filter((id) => !lost.includes(id)).sort());
    expect((await service.get(service.station(`/soundscapes/${lost[0]}`))).status).toBe(404);
    const d = await service.post(service.station('/detections'), {
      json: detectionBody({ timestamp: new Date(Date.UTC(2025, 5, 1, 3, ids.indexOf(lost[0]))).toISOString(), soundscapeId: lost[0], soundscapeStartTime: 3 }),
    });
    expect(d.status).toBe(201);
    expect(d.body.detection.soundscape ?? null).toBeNull();
  });

  test('alter-filesize and alter-duration: the listing says other than what was received', async () => {
    service = await startService({ faults: { alterFilesize: 0.3, alterDuration: 0.3 } });
    await uploadSoundscapes(10);
    const lies = service.emulator.lies();
    expect(lies.some((l) => l.fault === 'alter-filesize')).toBe(true);
    expect(lies.some((l) => l.fault === 'alter-duration')).toBe(true);
    for (const s of await soundscapes()) {
      const lie = lies.find((l) => l.id === s.id)?.fault;
      expect(Number(s.filesize)).toBe(lie === 'alter-filesize' ? Math.round(flac.length / 2) : flac.length);
      expect(Number(s.duration)).toBe(lie === 'alter-duration' ? 22 : 15);
    }
  });

  test('lose-detection and second-uploader: one lost, others copied with the same instant and species', async () => {
    service = await startService({ faults: 'lose-detection=0.3,second-uploader=0.3' });
    const posted: number[] = [];
    for (let i = 0; i < 12; i++) {
      const r = await service.post(service.station('/detections'), { json: detectionBody({ timestamp: new Date(Date.UTC(2025, 5, 1, 4, i)).toISOString() }) });
      expect(r.status).toBe(201);
      posted.push(r.body.detection.id);
    }
    const lies = service.emulator.lies();
    const lost = lies.filter((l) => l.fault === 'lose-detection').map((l) => l.id);
    const copies = lies.filter((l) => l.fault === 'second-uploader');
    expect(lost.length).toBeGreaterThan(0);
    expect(copies.length).toBeGreaterThan(0);
    const served = await detections();
    const ids = served.map((d) => d.id);
    expect(ids.sort()).toEqual([...posted.filter((id) => !lost.includes(id)), ...copies.map((c) => c.copyId!)].sort());
    for (const c of copies) {
      const [a, b] = [served.find((d) => d.id === c.id)!, served.find((d) => d.id === c.copyId)!];
      expect(Date.parse(b.timestamp)).toBe(Date.parse(a.timestamp));
      expect(b.species.scientificName).toBe(a.species.scientificName);
    }
  });

  test('no lie without the faults, and the request faults meet the same sequence with lies as without', async () => {
    service = await startService({ faults: '5xx=0.3' });
    const plain = Array.from({ length: 20 }, () => service.emulator.app.emulator.faults.decide('POST', '/api/v1/x').action);
    service.emulator.setFaults('5xx=0.3,lose-detection=0.5');
    const withLies = Array.from({ length: 20 }, () => service.emulator.app.emulator.faults.decide('POST', '/api/v1/x').action);
    expect(withLies).toEqual(plain);
    expect(service.emulator.lies()).toEqual([]);
  });
});
