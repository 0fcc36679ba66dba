import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startEmulator, type RunningEmulator } from '@station-agent/emulator';
import { buildCli, parseJson, runCli, writeCliConfig } from '../helpers/cli.js';
import { trickleForTest } from '../helpers/trickle-server.js';
import { tempDir } from '../helpers/paths.js';

/** `station-agent api graphql`, `api top-species` and `api counts` as processes against the local service. */

const TOKEN = 'api-graphql-station-token';
const OTHER = 'api-graphql-other-token';

let tmp: ReturnType<typeof tempDir>;
let service: RunningEmulator;
let config: string;
let stationId: number;

async function post(token: string, scientificName: string, commonName: string, hoursAgo = 1): Promise<void> {
  const response = await fetch(`${service.url}/api/v1/stations/${token}/detections`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ timestamp: new Date(Date.now() - hoursAgo * 3_600_000).toISOString(), scientificName, commonName, confidence: 0.9 }),
  });
  expect(response.status).toBe(201);
}

beforeAll(async () => {
  await buildCli();
  tmp = tempDir('cli-api-graphql-');
  service = await startEmulator({ tokens: [TOKEN, OTHER] });
  stationId = service.store.stations.byToken(TOKEN)!.id;
  config = writeCliConfig(path.join(tmp.dir, 'config.json'), { baseUrl: service.url, token: TOKEN, dataDir: path.join(tmp.dir, 'data'), inputDir: path.join(tmp.dir, 'input') });
  await post(TOKEN, 'Turdus merula', 'Eurasian Blackbird');
  await post(TOKEN, 'Turdus merula', 'Eurasian Blackbird', 2);
  await post(TOKEN, 'Erithacus rubecula', 'European Robin');
  await post(TOKEN, 'Erithacus rubecula', 'European Robin', 24 * 5);
  await post(OTHER, 'Parus major', 'Great Tit');
}, 180_000);

afterAll(async () => {
  await service?.close();
  tmp?.cleanup();
});

describe('station-agent api graphql', () => {
  test('prints the answer of a query with variables', async () => {
    const result = await runCli([
      'api', 'graphql', '--config', config,
      '--query', 'query($id: ID!) { station(id: $id) { name counts { detections species } } }',
      '--variables', JSON.stringify({ id: stationId }),
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(parseJson(result)).toEqual({ data: { station: { name: 'Station 1', counts: { detections: 3, species: 2 } } } });
  });

  test('reads the query from a file, and exits 1 with the errors printed when the answer has some', async () => {
    const file = path.join(tmp.dir, 'bad.graphql');
    writeFileSync(file, '{ detections(first: -1) { totalCount } }');
    const result = await runCli(['api', 'graphql', '--config', config, '--query', `@${file}`]);
    expect(result.code).toBe(1);
    expect(parseJson(result).errors[0].message).toBe('first must be 0 or more, got -1');
    const usage = await runCli(['api', 'graphql', '--config', config, '--query', '{}', '--variables', '[1]']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('expected a JSON object');
  });
});

describe('station-agent api graphql --query @file, with a hostile file', () => {
  test('a FIFO, a folder, a missing file: exit 2 at once naming the file; a token given as the file name is never printed', async () => {
    const fifo = path.join(tmp.dir, 'query-fifo.graphql');
    execFileSync('mkfifo', [fifo]);
    const folder = path.join(tmp.dir, 'query-folder.graphql');
    mkdirSync(folder);
    const cases: [string, RegExp][] = [
      [fifo, /--query @\S+: the file \S+query-fifo\.graphql is a FIFO \(named pipe\), not a regular file/],
      [folder, /--query @\S+: the file \S+query-folder\.graphql is a folder, not a regular file/],
      [path.join(tmp.dir, 'missing.graphql'), /--query @\S+: the file \S+missing\.graphql does not exist/],
    ];
    for (const [file, message] of cases) {
      // runCli's own time limit: a FIFO used to block the read until a writer came.
      const result = await runCli(['api', 'graphql', '--config', config, '--query', `@${file}`], { timeoutMs: 20_000 });
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toMatch(message);
    }
    // The station token pasted after the @ by mistake.
    const pasted = await runCli(['api', 'graphql', '--config', config, '--query', `@${TOKEN}`]);
    expect(pasted.code).toBe(2);
    expect(pasted.stderr).toContain('<redacted>');
    expect(pasted.stdout + pasted.stderr).not.toContain(TOKEN);
  });
});

describe('station-agent api top-species', () => {
  test("this station's species of the last day by default, as a table and as JSON", async () => {
    const table = await runCli(['api', 'top-species', '--config', config]);
    expect(table.code, table.stderr).toBe(0);
    const lines = table.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^#\s+SPECIES\s+SCIENTIFIC NAME\s+DETECTIONS/);
    expect(lines[1]).toMatch(/^1\s+Eurasian Blackbird\s+Turdus merula\s+2\s/);
    expect(lines[2]).toMatch(/^2\s+European Robin\s+Erithacus rubecula\s+1\s/);
    expect(lines).toHaveLength(3);
    const json = parseJson(await runCli(['api', 'top-species', '--json', '--period', 'week', '--config', config]));
    expect(json.topSpecies.map((s: { species: { commonName: string }; count: number }) => [s.species.commonName, s.count])).toEqual([
      ['Eurasian Blackbird', 2],
      ['European Robin', 2],
    ]);
  });

  test('every station, with limit and offset', async () => {
    const json = parseJson(await runCli(['api', 'top-species', '--json', '--all-stations', '--limit', '1', '--offset', '2', '--config', config]));
    expect(json.topSpecies).toHaveLength(1);
    expect(json.topSpecies[0].species.commonName).toBe('Great Tit');
  });
});

describe('station-agent api counts', () => {
  test('this station by default, every station on request', async () => {
    const own = await runCli(['api', 'counts', '--config', config]);
    expect(own.code, own.stderr).toBe(0);
    expect(own.stdout).toBe('detections: 3\nspecies:    2\nstations:   1 (analyzerpi 1)\nanalyzer:   0\n');
    const all = parseJson(await runCli(['api', 'counts', '--json', '--all-stations', '--period', 'all', '--config', config]));
    expect(all.counts).toEqual({ detections: 5, species: 3, stations: 2, analyzer: 0, breakdown: { stations: [{ type: 'analyzerpi', count: 2 }] } });
    const other = parseJson(await runCli(['api', 'counts', '--json', '--station-id', String(service.store.stations.byToken(OTHER)!.id), '--config', config]));
    expect(other.counts.detections).toBe(1);
  });

  test('an answer that trickles after its headers ends at service.timeoutMs as an outcome-unknown failure', async () => {
    // One byte every 100 ms: an idle timeout never fires, only the request's total limit.
    const trickle = await trickleForTest('body');
    const slow = writeCliConfig(path.join(tmp.dir, 'slow.json'), {
      baseUrl: trickle.url,
      token: TOKEN,
      dataDir: path.join(tmp.dir, 'data'),
      inputDir: path.join(tmp.dir, 'input'),
      extra: { service: { timeoutMs: 1_000 } },
    });
    const result = await runCli(['api', 'counts', '--all-stations', '--config', slow]);
    expect(result.stderr).toContain('no answer within 1000 ms');
    expect(result.code, result.stderr).toBe(4);
    expect(trickle.requests).toEqual(['POST /graphql HTTP/1.1']);
  });

  test('an unreachable service is exit code 4', async () => {
    const down = writeCliConfig(path.join(tmp.dir, 'down.json'), { baseUrl: 'http://127.0.0.1:9', token: TOKEN, dataDir: path.join(tmp.dir, 'data'), inputDir: path.join(tmp.dir, 'input') });
    const result = await runCli(['api', 'counts', '--all-stations', '--config', down]);
    expect(result.code).toBe(4);
    expect(result.stderr).toMatch(/cannot reach the GraphQL endpoint/);
  });
});
