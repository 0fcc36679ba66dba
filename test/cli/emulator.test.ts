import { writeFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { Command } from 'commander';
import { afterEach, describe, expect, test } from 'vitest';
import { registerEmulatorCommand, runEmulatorCommand, type EmulatorFlags } from '../../src/cli/commands/emulator.js';
import { tempDir } from '../helpers/paths.js';
import { call, detectionBody } from '../../emulator/test/helpers.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function program(): { program: Command; out: string[] } {
  const out: string[] = [];
  const p = new Command('station-agent').exitOverride().configureOutput({
    writeOut: (s) => out.push(s),
    writeErr: (s) => out.push(s),
  });
  registerEmulatorCommand(p);
  return { program: p, out };
}

/** Starts the command in-process; resolves with its URL, the output, and a stop function. */
async function start(flags: Partial<EmulatorFlags>) {
  const stdout = new PassThrough();
  const logs: string[] = [];
  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  const printed: string[] = [];
  const firstLine = new Promise<string>((resolve) =>
    stdout.on('data', (chunk: Buffer) => {
      printed.push(chunk.toString());
      resolve(chunk.toString());
    }),
  );
  const done = runEmulatorCommand(
    { host: '127.0.0.1', port: 0, db: ':memory:', ...flags },
    { stdout, log: { write: (line: string) => logs.push(line) }, stop: stopped },
  );
  const line = await Promise.race([firstLine, done.then(() => '')]);
  const url = /^listening on (http:\/\/\S+)\n$/.exec(line)?.[1];
  return { url: url!, line, logs, printed, stop: async () => (stop(), await done) };
}

describe('station-agent emulator', () => {
  test('--help lists the options and examples', async () => {
    const { program: p, out } = program();
    await expect(p.parseAsync(['node', 'station-agent', 'emulator', '--help'])).rejects.toMatchObject({ exitCode: 0 });
    const help = out.join('');
    for (const option of ['--host', '--port', '--db', '--token', '--stations', '--admin-token', '--labels', '--media-url', '--faults', '--seed']) {
      expect(help).toContain(option);
    }
    expect(help).toContain('Examples:');
    expect(help).toContain('STATION_AGENT_ADMIN_TOKEN');
  });

  test('a bad --port is a usage error', async () => {
    const { program: p } = program();
    await expect(p.parseAsync(['node', 'station-agent', 'emulator', '--port', 'eighty'])).rejects.toMatchObject({
      code: 'commander.invalidArgument',
    });
  });

  test('prints one "listening on" line, serves the stations, never prints a token, stops cleanly', async () => {
    const { dir, cleanup } = tempDir('emulator-cli-');
    cleanups.push(cleanup);
    const stationsFile = `${dir}/stations.json`;
    writeFileSync(stationsFile, JSON.stringify([{ token: 'file-token-123', name: 'From file', timezone: 'Europe/Paris' }]));
    const run = await start({
      token: ['flag-token-456'],
      stations: stationsFile,
      adminToken: 'admin-token-789',
      db: `${dir}/service.db`,
      verbose: true,
    });
    expect(run.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    for (const token of ['flag-token-456', 'file-token-123']) {
      const r = await call(run.url, 'POST', `/api/v1/stations/${token}/detections`, { json: detectionBody() });
      expect(r.status).toBe(201);
    }
    await run.stop();
    const everything = run.printed.join('') + run.logs.join('');
    expect(run.printed.join('')).toBe(run.line);
    expect(run.logs.some((l) => l.includes('/api/v1/stations/<redacted>/detections'))).toBe(true);
    for (const secret of ['flag-token-456', 'file-token-123', 'admin-token-789']) expect(everything).not.toContain(secret);
    await expect(fetch(`${run.url}/api/v1/species/1`)).rejects.toThrow();
  });

  test('an invalid fault spec or stations file stops it with a message naming the key', async () => {
    await expect(start({ faults: '5xx=3' })).rejects.toThrow(/5xx/);
    const { dir, cleanup } = tempDir('emulator-cli-');
    cleanups.push(cleanup);
    writeFileSync(`${dir}/s.json`, JSON.stringify([{ token: 'x', timezone: 'Mars/Olympus' }]));
    await expect(start({ stations: `${dir}/s.json` })).rejects.toThrow(/\[0\]\.timezone/);
  });
});
