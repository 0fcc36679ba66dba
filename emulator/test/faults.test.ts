import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Writable } from 'node:stream';
import { afterEach, describe, expect, test } from 'vitest';
import { runEmulatorCommand } from '../../src/cli/commands/emulator.js';
import { EmulatorOptionError, FAULT_KEYS, describeFaults, normalizeFaults, parseFaultString } from '../src/index.js';
import { REPO_ROOT } from '../../test/helpers/paths.js';
import { makeFlac } from './flac-fixture.js';
import { call, detectionBody, startService, TOKEN, type TestService } from './helpers.js';

const services: TestService[] = [];
async function service(faults?: string, seed = 7): Promise<TestService> {
  const s = await startService({ faults, seed });
  services.push(s);
  return s;
}
afterEach(async () => {
  // also proves close() does not hang on sockets held by timeout faults
  await Promise.all(services.splice(0).map((s) => s.stop()));
});

const storedDetections = (s: TestService) =>
  s.emulator.store.detections.list({ stationId: s.emulator.store.stations.byToken(TOKEN)!.id }, { limit: 100 }).length;

const postDetection = (s: TestService) => s.post(s.station('/detections'), { json: detectionBody() });

describe('fault spec', () => {
  test('the CLI string form', () => {
    expect(parseFaultString('5xx=0.1,html=0.5,429=0.05,retry-after=1,latency=20,timeout=0.02,drop=0.05,methods=GET+POST,paths=detections')).toEqual({
      error5xx: 0.1,
      html: 0.5,
      rate429: 0.05,
      retryAfterSec: 1,
      latencyMs: 20,
      timeout: 0.02,
      drop: 0.05,
      methods: ['GET', 'POST'],
      paths: 'detections',
    });
    expect(parseFaultString('')).toEqual({});
    expect(parseFaultString('none')).toEqual({});
    expect(normalizeFaults('drop=0.5')).toMatchObject({ drop: 0.5, retryAfterSec: 1, methods: new Set(['POST']) });
  });

  test('errors name the key', () => {
    const cases: [string | object, RegExp][] = [
      ['bogus=1', /"bogus"/],
      ['5xx=1.5', /"5xx" must be a share/],
      ['error5xx=0.5', /"error5xx" is not a fault key \(one of 5xx, html, 429,/],
      ['429=lots', /"429" must be a number/],
      ['drop', /"drop" needs a value/],
      ['methods=PUT', /"methods"/],
      ['paths=(', /"paths" is not a valid regular expression/],
      ['5xx=0.6,drop=0.6', /add up to at most 1/],
      [{ latencyMs: -1 }, /"latency" must be a number >= 0/],
      [{ error5xx: 2 }, /"5xx" must be a share/],
      [{ timeOut: 0.1 }, /"timeOut" is not a fault key/],
    ];
    for (const [spec, message] of cases) {
      expect(() => normalizeFaults(spec as string)).toThrow(EmulatorOptionError);
      expect(() => normalizeFaults(spec as string)).toThrow(message);
    }
  });

  test('a bad spec stops the emulator from starting', async () => {
    await expect(startService({ faults: '5xx=2' })).rejects.toThrow(/"5xx" must be a share/);
  });

  test('one set of names: the parser, its messages, its echo and the table in docs/EMULATOR.md', async () => {
    const doc = readFileSync(path.join(REPO_ROOT, 'docs/EMULATOR.md'), 'utf8');
    const table = doc.slice(doc.indexOf('| key (string form) | `FaultSpec` field |'));
    const rows = [...table.slice(0, table.indexOf('\n\n')).matchAll(/^\| `([^`]+)` \| `([^`]+)` \|/gm)].map((m) => [m[1], m[2]]);
    expect(rows).toEqual(FAULT_KEYS.map((k) => [k.key, k.field]));

    // Every documented key is what the messages name, from the string form and from a FaultSpec.
    for (const { key, field } of FAULT_KEYS) {
      const bad = field === 'methods' ? 'PUT' : field === 'paths' ? '(' : '-1';
      expect(() => normalizeFaults(`${key}=${bad}`)).toThrow(`fault spec: "${key}" `);
      expect(() => normalizeFaults({ [field]: field === 'methods' ? ['PUT'] : field === 'paths' ? '(' : -1 })).toThrow(`fault spec: "${key}" `);
    }

    // The echo (what `station-agent emulator` logs) uses the documented keys and reads back the same.
    const example = /--faults "([^"]+)"/.exec(doc)?.[1] ?? '';
    const echo = describeFaults(normalizeFaults(example));
    expect(echo.split(',').map((e) => e.slice(0, e.indexOf('=')))).toEqual(FAULT_KEYS.filter((k) => k.field !== 'paths').map((k) => k.key));
    expect(normalizeFaults(echo)).toEqual(normalizeFaults(example));
    expect(describeFaults(normalizeFaults('5xx=0.25,paths=/soundscapes'))).toContain('5xx=0.25,');

    const logs: string[] = [];
    let stop!: () => void;
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    const listening = new Promise<void>((resolve) => {
      const stdout = { write: () => resolve() } as unknown as Writable;
      void runEmulatorCommand({ host: '127.0.0.1', port: 0, db: ':memory:', faults: '5xx=0.25,429=0.1' }, { stdout, log: { write: (l: string) => logs.push(l) }, stop: stopped });
    });
    await listening;
    stop();
    const started = logs.map((l) => JSON.parse(l) as { msg: string; faults?: string }).find((l) => l.msg === 'local service started');
    expect(started?.faults).toMatch(/^5xx=0\.25,html=0,429=0\.1,retry-after=1,/);
  });
});

describe('fault kinds', () => {
  test('HTML 5xx: a gateway page with content-type text/html, nothing stored', async () => {
    const s = await service('5xx=1,html=1');
    const r = await postDetection(s);
    expect([502, 504]).toContain(r.status);
    expect(r.headers.get('content-type')).toMatch(/^text\/html/);
    expect(r.text).toMatch(/<html>[\s\S]*Gateway|Bad Gateway/);
    expect(storedDetections(s)).toBe(0);
  });

  test('JSON 5xx', async () => {
    const s = await service('5xx=1,html=0');
    const r = await postDetection(s);
    expect([500, 503]).toContain(r.status);
    expect(r.body).toMatchObject({ success: false });
  });

  test('429 with Retry-After', async () => {
    const s = await service('429=1,retry-after=7');
    const r = await postDetection(s);
    expect(r.status).toBe(429);
    expect(r.headers.get('retry-after')).toBe('7');
    expect(r.body).toMatchObject({ success: false });
    expect(storedDetections(s)).toBe(0);
  });

  test('drop: the request is stored, then the connection is destroyed before the response', async () => {
    const s = await service('drop=1');
    await expect(postDetection(s)).rejects.toThrow();
    expect(storedDetections(s)).toBe(1);
    // an upload too: stored, no answer
    await expect(
      s.post(s.station('/soundscapes?timestamp=2025-06-01T00:00:00Z'), { body: makeFlac(), headers: { 'content-type': 'audio/flac' } }),
    ).rejects.toThrow();
    const stationId = s.emulator.store.stations.byToken(TOKEN)!.id;
    expect(s.emulator.store.soundscapes.list({ stationId }, { limit: 10 })).toHaveLength(1);
  });

  test('timeout: never answered, nothing stored; the client gives up', async () => {
    const s = await service('timeout=1');
    const attempt = fetch(`${s.emulator.url}${s.station('/detections')}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(detectionBody()),
      signal: AbortSignal.timeout(300),
    });
    await expect(attempt).rejects.toThrow(/abort|timeout/i);
    expect(storedDetections(s)).toBe(0);
  });

  test('latency alone delays but answers normally', async () => {
    const s = await service('latency=30');
    expect((await postDetection(s)).status).toBe(201);
  });
});

describe('fault scope and control', () => {
  test('POST only by default; methods and paths widen or narrow it', async () => {
    const s = await service('5xx=1');
    expect((await s.get(s.station('/detections'))).status).toBe(200);
    expect((await postDetection(s)).status).toBeGreaterThanOrEqual(500);

    s.emulator.setFaults('5xx=1,methods=GET');
    expect((await s.get(s.station('/detections'))).status).toBeGreaterThanOrEqual(500);
    expect((await postDetection(s)).status).toBe(201);

    s.emulator.setFaults({ error5xx: 1, paths: '/soundscapes' });
    expect((await postDetection(s)).status).toBe(201);

    s.emulator.setFaults(null);
    expect((await postDetection(s)).status).toBe(201);
  });

  test('only /api/v1 routes', async () => {
    const s = await service('5xx=1,methods=GET+POST');
    const species = s.emulator.store.species.byScientificName('Turdus merula')!;
    const image = await call(s.emulator.url, 'GET', `/media/species/${species.id}/image.svg`);
    expect(image.status).toBe(200);
  });

  test('deterministic with the seed: the same requests meet the same faults', async () => {
    const spec = '5xx=0.3,429=0.2,html=0.5';
    const run = async (s: TestService) => {
      const statuses: number[] = [];
      for (let i = 0; i < 30; i++) statuses.push((await postDetection(s)).status);
      return statuses;
    };
    const a = await run(await service(spec, 42));
    const b = await run(await service(spec, 42));
    expect(a).toEqual(b);
    expect(new Set(a)).toContain(201);
    expect(a.some((st) => st >= 500)).toBe(true);
    expect(a).toContain(429);
    const c = await run(await service(spec, 43));
    expect(c).not.toEqual(a);
  });

  test('setFaults restarts the sequence from the seed', async () => {
    const s = await service(undefined, 5);
    const run = async () => {
      s.emulator.setFaults('5xx=0.5');
      const statuses: number[] = [];
      for (let i = 0; i < 12; i++) statuses.push((await postDetection(s)).status);
      return statuses;
    };
    expect(await run()).toEqual(await run());
  });
});

describe('drift', () => {
  test('reshapes successful answers as the real service has drifted, meaning unchanged', async () => {
    const s = await service('drift=1,methods=GET+POST');
    const upload = await s.post(s.station(`/soundscapes?timestamp=${encodeURIComponent('2025-06-01T05:30:00.000+02:00')}`), {
      body: makeFlac({ sampleRate: 48_000, samples: 48_000 * 15 }),
      headers: { 'content-type': 'audio/flac' },
    });
    expect(upload.status).toBe(201);
    const uploaded = upload.body as unknown as Record<string, unknown> & { soundscape: Record<string, unknown> };
    expect(uploaded.success).toBeUndefined();
    expect(uploaded.extension).toBeNull();
    const soundscape = uploaded.soundscape;
    expect(soundscape.id).toMatch(/^\d{10}$/);
    expect(soundscape.stationId).toMatch(/^\d+$/);
    expect(soundscape).toMatchObject({ extension: null, revision: 2 });
    const id = Number(soundscape.id);
    expect(s.emulator.store.soundscapes.byId(id)).toBeDefined();

    const detection = await s.post(s.station('/detections'), { json: detectionBody({ soundscapeId: id, soundscapeStartTime: 3 }) });
    expect(detection.status).toBe(201);
    expect(detection.text).not.toContain('"success"');
    const d = detection.body.detection as unknown as Record<string, unknown> & { species: { id: unknown }; soundscape: { id: unknown } };
    expect(typeof d.id).toBe('string');
    expect(typeof d.species.id).toBe('string');
    expect(d.soundscape.id).toBe(String(id));

    // Both forms of duration appear over a few reads: a float written with a decimal point, and a string.
    const forms = new Set<string>();
    for (let i = 0; i < 20 && forms.size < 2; i++) {
      const r = await s.get(s.station(`/soundscapes/${id}`));
      expect(r.status).toBe(200);
      expect(r.body.success).toBe(true); // only a 201 loses it
      const raw = /"duration":("?[\d.]+"?)/.exec(r.text)?.[1] ?? '';
      forms.add(raw.startsWith('"') ? 'string' : raw.includes('.') ? 'float' : 'int');
      expect(Number(raw.replace(/"/g, ''))).toBe(15);
    }
    expect([...forms].sort()).toEqual(['float', 'string']);
  });

  test('errors are not reshaped, and without drift nothing is', async () => {
    const s = await service('drift=1');
    const bad = await s.post(s.station('/detections'), { json: detectionBody({ scientificName: 'Nonexistus fictus' }) });
    expect(bad.status).toBe(422);
    expect(bad.body).toEqual({ success: false, errors: { species: ['must exist'] } });
    const plain = await service();
    const ok = await postDetection(plain);
    expect(typeof ok.body.detection.id).toBe('number');
    expect(ok.body.success).toBe(true);
  });
});
