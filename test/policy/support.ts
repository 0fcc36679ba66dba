import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';

/**
 * Realistic analyzer output for the policy tests: BirdNET-Analyzer's v2.x CSV
 * (`Start (s),End (s),Scientific name,Common name,Confidence,File`, as in the real
 * ../shared/fixtures/real/birdnetTools/test_example_1.csv) and the analyzerpi JSON.
 * The class names are the real labels file's (`Human vocal_Human vocal`, `Dog_Dog`).
 */
export type Row = [start: number, scientific: string, common: string, confidence: number];

export function writeResultsCsv(file: string, audioName: string, rows: readonly Row[]): void {
  const lines = ['Start (s),End (s),Scientific name,Common name,Confidence,File'];
  for (const [start, sci, common, conf] of rows) lines.push(`${start.toFixed(1)},${(start + 3).toFixed(1)},${sci},${common},${conf},${audioName}`);
  writeFileSync(file, `${lines.join('\n')}\n`);
}

export function analyzerpiJson(name: string, timestamp: string, rows: readonly [start: number, common: string, confidence: number][]): string {
  return JSON.stringify({
    file_name: `${name}.json`,
    timestamp,
    delay: 0,
    detections: rows.map(([start, common_name, confidence]) => ({ start, common_name, confidence })),
  });
}

/** Every file (not folder) under the spool, relative to it. */
export function spoolFiles(dataDir: string): string[] {
  const root = path.join(dataDir, 'spool');
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else out.push(path.relative(root, full));
    }
  };
  walk(root);
  return out;
}

/** The agent's JSON log lines that carry `policy`. */
export function policyLogLines(lines: readonly string[]): Record<string, unknown>[] {
  return lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => 'policy' in l);
}

/** A port nothing listens on (taken, then let go): a service that is down. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
