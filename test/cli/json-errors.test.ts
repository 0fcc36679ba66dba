import path from 'node:path';
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/commands/index.js';
import { EXIT } from '../../src/errors.js';
import { buildProgram } from '../../src/cli/program.js';
import { startEmulator, type RunningEmulator } from '@station-agent/emulator';
import { buildCli, parseJson, runCli, writeCliConfig } from '../helpers/cli.js';
import { tempDir } from '../helpers/paths.js';

/**
 * The `--json` contract: stdout carries one JSON document in every outcome. A failure
 * is `{"error": {"code", "message", ...}}` with the stable code, and the exit code
 * carries the status. One row per command that takes --json (the table is checked
 * against the program itself), each run as a process into a failure.
 */

const TOKEN = 'json-errors-test-token-8b21';

interface Row {
  /** The command as typed, without --json and --config. */
  command: string;
  /** Arguments after the command; `config` is the file to pass to --config, or none. */
  args: (w: World) => string[];
  exit: number;
  /** The error's code, or null where the command's own document carries the failure. */
  code: string | null;
  /** Further checks of the document. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a parsed CLI document
  check?: (doc: any) => void;
}

interface World {
  /** A config naming a file that does not exist. */
  missing: string[];
  /** A valid config: the local service, a token it knows, a dataDir never used (no queue yet). */
  fresh: string[];
}

const ROWS: Row[] = [
  { command: 'status', args: (w) => w.missing, exit: EXIT.CONFIG, code: 'ERR_CONFIG_INVALID', check: (d) => expect(d.error.problems).toEqual(['the file does not exist']) },
  { command: 'audit', args: (w) => w.missing, exit: EXIT.CONFIG, code: 'ERR_CONFIG_INVALID' },
  { command: 'doctor', args: (w) => w.missing, exit: EXIT.CONFIG, code: null, check: (d) => expect(d).toMatchObject({ ok: false, configInvalid: true }) },
  { command: 'config validate', args: (w) => w.missing, exit: EXIT.CONFIG, code: 'ERR_CONFIG_INVALID', check: (d) => expect(d.valid).toBe(false) },
  { command: 'config show', args: (w) => w.missing, exit: EXIT.CONFIG, code: 'ERR_CONFIG_INVALID' },
  { command: 'config push', args: (w) => w.missing, exit: EXIT.CONFIG, code: 'ERR_CONFIG_INVALID' },
  // Before the daemon's first start the queue is empty, as status says: not exit 5.
  { command: 'queue list', args: (w) => w.fresh, exit: EXIT.OK, code: null, check: (d) => expect(d).toEqual({ items: [], next: null }) },
  { command: 'queue show', args: (w) => ['d999999', ...w.fresh], exit: EXIT.FAILURE, code: 'ERR_COMMAND_FAILED', check: (d) => expect(d.error.message).toContain('d999999') },
  { command: 'queue retry', args: (w) => ['d999999', ...w.fresh], exit: EXIT.QUEUE, code: 'ERR_QUEUE' },
  { command: 'queue drop', args: (w) => ['d999999', '--yes', ...w.fresh], exit: EXIT.QUEUE, code: 'ERR_QUEUE' },
  { command: 'queue release', args: (w) => ['d999999', ...w.fresh], exit: EXIT.QUEUE, code: 'ERR_QUEUE' },
  { command: 'ingest', args: (w) => ['/nonexistent/folder', ...w.fresh], exit: EXIT.FAILURE, code: null, check: (d) => expect(d.errors[0].file).toBe('/nonexistent/folder') },
  { command: 'api stats', args: (w) => w.missing, exit: EXIT.CONFIG, code: 'ERR_CONFIG_INVALID' },
  { command: 'api species', args: (w) => w.missing, exit: EXIT.CONFIG, code: 'ERR_CONFIG_INVALID' },
  { command: 'api detections', args: (w) => ['--limit', '0', ...w.fresh], exit: EXIT.USAGE, code: 'ERR_USAGE' },
  { command: 'api detection', args: (w) => ['999999', ...w.fresh], exit: EXIT.NETWORK, code: 'ERR_HTTP_STATUS', check: (d) => expect(d.error.status).toBe(404) },
  { command: 'api soundscapes', args: (w) => w.missing, exit: EXIT.CONFIG, code: 'ERR_CONFIG_INVALID' },
  { command: 'api soundscape', args: (w) => ['999999', ...w.fresh], exit: EXIT.NETWORK, code: 'ERR_HTTP_STATUS', check: (d) => expect(d.error.status).toBe(404) },
  { command: 'api species-info', args: (w) => ['999999', ...w.fresh], exit: EXIT.NETWORK, code: 'ERR_HTTP_STATUS', check: (d) => expect(d.error.status).toBe(404) },
  { command: 'api species-lookup', args: (w) => w.missing, exit: EXIT.USAGE, code: 'ERR_USAGE' },
  { command: 'api top-species', args: (w) => ['--limit', '1000', ...w.fresh], exit: EXIT.USAGE, code: 'ERR_USAGE' },
  { command: 'api counts', args: (w) => w.missing, exit: EXIT.CONFIG, code: 'ERR_CONFIG_INVALID' },
  { command: 'watch', args: (w) => w.missing, exit: EXIT.CONFIG, code: 'ERR_CONFIG_INVALID' },
  { command: 'demo', args: () => ['--timeout', '1'], exit: EXIT.USAGE, code: 'ERR_USAGE', check: (d) => expect(d.error.message).toContain('--timeout') },
];

/** Every command of the program that takes --json, as typed (`queue list`). */
async function commandsWithJson(): Promise<string[]> {
  const found: string[] = [];
  const walk = (cmd: Command, prefix: string[]) => {
    for (const sub of cmd.commands) {
      const name = [...prefix, sub.name()];
      if (sub.options.some((o) => o.long === '--json')) found.push(name.join(' '));
      walk(sub, name);
    }
  };
  walk(buildProgram(await Promise.all(COMMANDS.map((c) => c.load()))), []);
  return found.sort();
}

describe('--json on errors', () => {
  let service: RunningEmulator;
  let tmp: ReturnType<typeof tempDir>;
  let world: World;

  beforeAll(async () => {
    await buildCli();
    service = await startEmulator({ tokens: [TOKEN] });
    tmp = tempDir('cli-json-errors-');
    const fresh = writeCliConfig(path.join(tmp.dir, 'config.json'), {
      baseUrl: service.url,
      token: TOKEN,
      dataDir: path.join(tmp.dir, 'data'),
      inputDir: path.join(tmp.dir, 'input'),
    });
    world = { missing: ['--config', path.join(tmp.dir, 'no-such-config.json')], fresh: ['--config', fresh] };
  }, 180_000);

  afterAll(async () => {
    await service?.close();
    tmp?.cleanup();
  });

  it('has a row for every command that takes --json', async () => {
    expect(ROWS.map((r) => r.command).sort()).toEqual(await commandsWithJson());
  });

  it.each(ROWS)('$command', async (row) => {
    const result = await runCli([...row.command.split(' '), ...row.args(world), '--json'], { timeoutMs: 60_000 });
    const doc = parseJson(result);
    expect(result.code, result.stderr).toBe(row.exit);
    if (row.code) expect(doc.error).toMatchObject({ code: row.code, message: expect.any(String) });
    row.check?.(doc);
    expect(result.stdout).not.toContain(TOKEN);
  }, 90_000);

  it('puts commander usage errors in the same shape, with exit 2', async () => {
    const result = await runCli(['queue', 'list', '--json', '--no-such-flag']);
    expect(result.code).toBe(EXIT.USAGE);
    expect(parseJson(result)).toEqual({ error: { code: 'ERR_USAGE', message: "unknown option '--no-such-flag'" } });
    // The text stays on stderr for people.
    expect(result.stderr).toContain("unknown option '--no-such-flag'");
  });

  it('prints no JSON without --json', async () => {
    const result = await runCli(['queue', 'show', 'd999999', '--config', world.fresh[1]]);
    expect(result.code).toBe(EXIT.FAILURE);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('station-agent: no detection d999999');
  });
});
