import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServiceClient, type ServiceClient } from '../../src/api/index.js';
import { createFlacEncoder } from '../../src/audio/flac-encoder.js';
import { startEmulator, type RunningEmulator } from '@station-agent/emulator';
import { buildCli, parseJson, runCli, writeCliConfig } from '../helpers/cli.js';
import { realFixture, tempDir } from '../helpers/paths.js';

const TOKEN = 'api-test-token-0b6f44';
const OTHER_TOKEN = 'api-test-other-token-9e1c2a';
const ADMIN = 'api-test-admin-token-77f0d3';
const DETECTIONS = 230;

describe('station-agent api', () => {
  let service: RunningEmulator;
  let tmp: ReturnType<typeof tempDir>;
  let config: string;
  let client: ServiceClient;
  const soundscapeIds: number[] = [];
  let magpieId: number;
  let otherStationId: number;

  beforeAll(async () => {
    await buildCli();
    service = await startEmulator({
      tokens: [TOKEN],
      stations: [{ token: OTHER_TOKEN, name: 'Other', edition: 'bat' }],
      adminToken: ADMIN,
    });
    tmp = tempDir('cli-api-');
    config = writeCliConfig(path.join(tmp.dir, 'config.json'), { baseUrl: service.url, token: TOKEN, dataDir: path.join(tmp.dir, 'data'), inputDir: path.join(tmp.dir, 'input') });

    // Real audio, encoded as the agent does, uploaded through the real client.
    const flac = path.join(tmp.dir, 'magpie.flac');
    const encoder = createFlacEncoder({ thread: 'in-process' });
    await encoder.encode(realFixture('birdnet-pi_88985a3a', 'Pica pica_30s.wav'), flac);
    await encoder.close();
    client = createServiceClient({ baseUrl: service.url, token: TOKEN });
    for (let i = 0; i < 3; i++) {
      const s = await client.uploadSoundscape({ timestamp: `2025-05-0${i + 1}T06:00:00.000+02:00`, file: flac });
      soundscapeIds.push(s.id);
    }
    for (let i = 0; i < DETECTIONS; i++) {
      const [scientificName, commonName] = i % 2 === 0 ? ['Pica pica', 'Eurasian Magpie'] : ['Turdus merula', 'Eurasian Blackbird'];
      const minute = String(i % 60).padStart(2, '0');
      const hour = String(6 + Math.floor(i / 60)).padStart(2, '0');
      const d = await client.postDetection({
        timestamp: `2025-05-01T${hour}:${minute}:00.000+02:00`,
        scientificName,
        commonName,
        confidence: 0.75 + (i % 20) / 100,
        ...(i < 3 ? { soundscapeId: soundscapeIds[i], soundscapeStartTime: 0, soundscapeEndTime: 3 } : {}),
      });
      if (i === 0) magpieId = d.species.id;
    }
    // Bat detections with behaviour on the other (bat edition) station, posted raw: behaviour is an extension of the local service.
    for (const [i, behavior_key] of ['bat_feeding_buzz', 'bat_pass', 'bat_chase'].entries()) {
      const res = await fetch(`${service.url}/api/v1/stations/${OTHER_TOKEN}/detections`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          timestamp: `2025-06-0${i + 1}T22:00:00.000+02:00`,
          scientificName: 'Pipistrellus pipistrellus',
          commonName: 'Common Pipistrelle',
          confidence: 0.9,
          behavior_key,
          behavior_confidence: 0.8,
        }),
      });
      expect(res.status).toBe(201);
    }
    otherStationId = service.store.stations.byToken(OTHER_TOKEN)!.id;
  }, 180_000);

  afterAll(async () => {
    await client?.close();
    await service?.close();
    tmp?.cleanup();
  });

  const api = (args: string[], env?: Record<string, string | undefined>) => runCli(['api', ...args, '--config', config], { env });

  it('stats: counts of the station, with every parameter', async () => {
    const all = parseJson(await api(['stats', '--period', 'all', '--json']));
    expect(all).toMatchObject({ success: true, detections: DETECTIONS, species: 2 });
    const avian = await api(['stats', '--since', '2025-01-01', '--mode', 'analyzerpi', '--classification', 'avian,bat']);
    expect(avian.code).toBe(0);
    expect(avian.stdout).toMatch(/^detections: \d+$/m);
    expect(avian.stdout).toMatch(/^species:\s+\d+$/m);
  });

  it('species: the certainty breakdown as a table and as JSON', async () => {
    const table = await api(['species', '--period', 'all', '--sort', 'common_name', '--order', 'asc']);
    expect(table.code).toBe(0);
    const lines = table.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^\s*ID\s+COMMON NAME\s+SCIENTIFIC NAME\s+CLASS\s+TOTAL\s+ALMOST CERTAIN\s+VERY LIKELY\s+UNCERTAIN\s+UNLIKELY\s+LATEST$/);
    expect(lines[1]).toMatch(/Eurasian Blackbird\s+Turdus merula\s+avian\s+115\s/);
    expect(lines[2]).toMatch(/Eurasian Magpie\s+Pica pica\s+avian\s+115\s/);
    const json = parseJson(await api(['species', '--period', 'all', '--species-id', String(magpieId), '--limit', '5', '--page', '1', '--json']));
    expect(json.species).toHaveLength(1);
    const b = json.species[0].detections;
    expect(b.total).toBe(115);
    expect(b.almostCertain + b.veryLikely + b.uncertain + b.unlikely).toBe(115);
  });

  it('detections: time, species, confidence, certainty, behavior; one page with a hint for the next', async () => {
    const result = await api(['detections', '--limit', '5']);
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^\s*ID\s+TIME\s+SPECIES\s+CONFIDENCE\s+CERTAINTY\s+BEHAVIOR$/);
    expect(lines).toHaveLength(6);
    expect(lines[1]).toMatch(/^\s*\d+\s+2025-05-01T07:49:00\.000\+00:00\s+Eurasian Blackbird \(Turdus merula\)\s+0\.840\s+\w+/);
    expect(result.stderr).toMatch(/more detections: add --cursor \d+ \(or --all\)/);
  });

  it('detections --all follows the cursor to the end, streaming valid JSON', async () => {
    const result = await api(['detections', '--all', '--limit', '50', '--json']);
    expect(result.code).toBe(0);
    const json = parseJson(result);
    expect(json.success).toBe(true);
    expect(json.pages).toBe(5);
    expect(json.detections).toHaveLength(DETECTIONS);
    const ids = json.detections.map((d: { id: number }) => d.id);
    expect(new Set(ids).size).toBe(DETECTIONS);
    const times = json.detections.map((d: { timestamp: string }) => Date.parse(d.timestamp));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
  });

  it('detections --all as a table: one header, every row', async () => {
    const result = await api(['detections', '--all', '--limit', '100', '--species-id', String(magpieId)]);
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines.filter((l) => /^\s*ID\s+TIME/.test(l))).toHaveLength(1);
    expect(lines).toHaveLength(1 + 115);
    expect(lines.slice(1).every((l) => l.includes('Eurasian Magpie'))).toBe(true);
    expect(result.stderr).toContain('115 detections in 2 pages');
  });

  it('detections: filters by time range, and reports the fallback list when nothing matches', async () => {
    const range = parseJson(await api(['detections', '--from', '2025-05-01T06:00:00+02:00', '--to', '2025-05-01T06:09:00+02:00', '--json']));
    expect(range.detections).toHaveLength(10);
    const none = await api(['detections', '--from', '2030-01-01', '--to', '2030-01-02']);
    expect(none.code).toBe(0);
    expect(none.stdout).toBe('');
    expect(none.stderr).toContain('no detections match');
  });

  it('detection ID: one detection, station-scoped and global', async () => {
    const [first] = parseJson(await api(['detections', '--limit', '1', '--json'])).detections;
    const one = await api(['detection', String(first.id)]);
    expect(one.code).toBe(0);
    expect(one.stdout).toMatch(new RegExp(`^id:\\s+${first.id}$`, 'm'));
    expect(one.stdout).toMatch(/^species:\s+Eurasian Blackbird \(Turdus merula\)/m);
    const global = parseJson(await api(['detection', String(first.id), '--global', '--json']));
    expect(global.detection.id).toBe(first.id);
    const missing = await api(['detection', '999', '--global']);
    expect(missing.code).toBe(4);
    expect(missing.stderr).toContain('HTTP 404');
  });

  it('soundscapes and soundscape ID, with detections', async () => {
    const list = parseJson(await api(['soundscapes', '--detections', '--json']));
    expect(list.soundscapes.map((s: { id: number }) => s.id)).toEqual([...soundscapeIds].reverse());
    expect(list.soundscapes[0].detections).toHaveLength(1);
    const table = await api(['soundscapes', '--limit', '2']);
    expect(table.stdout.trim().split('\n')).toHaveLength(3);
    expect(table.stdout).toMatch(/\s30 s\s/);
    const all = parseJson(await api(['soundscapes', '--all', '--limit', '1', '--json']));
    expect(all.soundscapes).toHaveLength(3);
    const one = await api(['soundscape', String(soundscapeIds[0]), '--detections']);
    expect(one.code).toBe(0);
    expect(one.stdout).toMatch(/^sample rate:\s+48000 Hz$/m);
    expect(one.stdout).toMatch(/Eurasian Magpie \(Pica pica\)/);
  });

  it('species-info and species-lookup', async () => {
    const info = await api(['species-info', String(magpieId)]);
    expect(info.code).toBe(0);
    expect(info.stdout).toMatch(/^scientificName:\s+Pica pica$/m);
    const lookup = parseJson(await api(['species-lookup', 'Pica pica_Eurasian Magpie', 'Turdus merula_Eurasian Blackbird', '--fields', 'id,commonName', '--json']));
    expect(Object.keys(lookup.species)).toEqual(['Pica pica_Eurasian Magpie', 'Turdus merula_Eurasian Blackbird']);
    expect(lookup.species['Pica pica_Eurasian Magpie'].id).toBe(magpieId);
    const bad = await api(['species-lookup', 'Pica pica']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('<scientific name>_<common name>');
  });

  it('--station-id reads another station with the admin token from the environment or a file', async () => {
    const result = await api(['detections', '--station-id', String(otherStationId), '--behavior', 'bat_feeding_buzz,bat_pass', '--json'], {
      STATION_AGENT_ADMIN_TOKEN: ADMIN,
    });
    expect(result.code).toBe(0);
    const keys = parseJson(result).detections.map((d: { behavior_key: string }) => d.behavior_key).sort();
    expect(keys).toEqual(['bat_feeding_buzz', 'bat_pass']);

    const file = path.join(tmp.dir, 'admin-token');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(file, `${ADMIN}\n`, { mode: 0o600 });
    const table = await api(['detections', '--station-id', String(otherStationId), '--admin-token-file', file]);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/Common Pipistrelle.*bat_feeding_buzz/);
    expect(table.stdout + table.stderr).not.toContain(ADMIN);

    const noAdmin = await api(['stats', '--station-id', String(otherStationId)]);
    expect(noAdmin.code).toBe(2);
    expect(noAdmin.stderr).toContain('STATION_AGENT_ADMIN_TOKEN');
    const wrongAdmin = await api(['stats', '--station-id', String(otherStationId)], { STATION_AGENT_ADMIN_TOKEN: 'not-the-admin' });
    expect(wrongAdmin.code).toBe(4);
    expect(wrongAdmin.stderr).toContain('HTTP 403');
  });

  it('rejects invalid option values with a usage error (exit 2) naming what is accepted', async () => {
    const cases: [string[], RegExp][] = [
      [['stats', '--period', 'year'], /--period.*day, week, month, all/s],
      [['species', '--sort', 'name'], /--sort.*common_name, scientific_name, top/s],
      [['species', '--order', 'up'], /--order.*asc, desc/s],
      [['detections', '--classification', 'avian,fish'], /"fish" is not one of avian, amphibian/],
      [['detections', '--behavior', 'bat_sleep'], /"bat_sleep" is not one of bat_search_open/],
      [['detections', '--limit', '500'], /between 1 and 100/],
      [['detections', '--from', 'yesterday'], /ISO 8601/],
      [['detection', 'abc'], /whole number/],
    ];
    for (const [args, message] of cases) {
      const result = await api(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toMatch(message);
    }
  });

  it('exits 4 with the redacted request when the token is refused', async () => {
    const result = await api(['stats'], { STATION_AGENT_TOKEN: 'refused-token-5d5d' });
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('HTTP 403');
    expect(result.stderr).toContain('/stations/<redacted>/stats');
    expect(result.stdout + result.stderr).not.toContain('refused-token-5d5d');
  });

  it('has --help with examples for every subcommand', async () => {
    for (const sub of ['stats', 'species', 'detections', 'detection', 'soundscapes', 'soundscape', 'species-info', 'species-lookup']) {
      const result = await runCli(['api', sub, '--help']);
      expect(result.code, sub).toBe(0);
      expect(result.stdout, sub).toContain('Examples:');
    }
  });
});
