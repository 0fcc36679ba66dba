import type { Writable } from 'node:stream';
import { Option, type Command } from 'commander';
import { importDevPackage, LOCAL_SERVICE_PACKAGE, type LocalServiceOptions, type LocalServicePackage } from './support/dev-packages.js';
import { examples, integerIn } from './support/options.js';
import { addSecret } from '../../wire/redact.js';

/** Flags of `station-agent emulator`, as commander hands them over: the local service's options, but `--token` and `--stations` by their flag names. */
export interface EmulatorFlags extends Omit<LocalServiceOptions, 'tokens' | 'stationsFile' | 'logger'> {
  token?: string[];
  stations?: string;
  verbose?: boolean;
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

export interface EmulatorCommandIo {
  /** Receives the one `listening on <url>` line. */
  stdout: Writable;
  /** Log lines (JSON, tokens redacted); default standard error. */
  log?: { write(line: string): unknown };
  /** Resolves when the service should stop (the action: SIGINT or SIGTERM). */
  stop: Promise<unknown>;
}

/**
 * Starts the local service with the flags, prints `listening on <url>` (one line on
 * stdout; tokens are never printed), and runs until `io.stop` resolves. Returns once
 * the service is closed.
 */
export async function runEmulatorCommand(flags: EmulatorFlags, io: EmulatorCommandIo): Promise<void> {
  const [{ startEmulator, describeFaults, normalizeFaults }, { createLogger }, { pino }] = await Promise.all([
    importDevPackage<LocalServicePackage>(LOCAL_SERVICE_PACKAGE, 'emulator'),
    import('../../log/index.js'),
    import('pino'),
  ]);
  const tokens = flags.token ?? [];
  addSecret(...tokens, flags.adminToken);
  const logger = createLogger({
    level: flags.verbose ? 'debug' : 'info',
    destination: io.log ?? pino.destination({ dest: 2, sync: true }),
  });
  const emulator = await startEmulator({
    host: flags.host,
    port: flags.port,
    db: flags.db,
    dataDir: flags.dataDir,
    tokens,
    stationsFile: flags.stations,
    adminToken: flags.adminToken,
    labels: flags.labels,
    mediaUrl: flags.mediaUrl,
    faults: flags.faults,
    seed: flags.seed,
    idOffset: flags.idOffset,
    logger,
  });
  const stations = emulator.store.stations.all().length;
  const species = emulator.store.species.count();
  // The faults as the service reads them, in the documented key names (docs/EMULATOR.md).
  const faults = flags.faults ? describeFaults(normalizeFaults(flags.faults)) : null;
  logger.info({ db: flags.db, stations, species, faults }, 'local service started');
  io.stdout.write(`listening on ${emulator.url}\n`);
  await io.stop;
  logger.info('stopping');
  await emulator.close();
}

/**
 * `station-agent emulator`: the local implementation of the service (REST V1 and GraphQL),
 * for trying a station without a real token, and the target of tests and benchmarks.
 */
export function registerEmulatorCommand(program: Command): void {
  program
    .command('emulator')
    .description('run the local service (REST V1 and GraphQL) to try a station without a real token')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port to listen on (0: any free port)', integerIn(0, 65_535), 0)
    .option('--db <path>', "SQLite file of the service's data (':memory:' keeps nothing)", ':memory:')
    .option('--data-dir <path>', 'folder of uploaded audio (default: <db>.media, or a temporary folder)')
    .option('--token <token>', 'create an active analyzerpi station with this token (repeatable)', collect)
    .option('--stations <file.json>', 'create the stations listed in this JSON file (see docs/EMULATOR.md)')
    .addOption(
      new Option('--admin-token <token>', 'administrator token, accepted only in the Authorization or X-Auth-Token header').env(
        'STATION_AGENT_ADMIN_TOKEN',
      ),
    )
    .option('--labels <file>', 'species catalog in the analyzer labels format (default: the shipped catalog)')
    .option('--media-url <url>', 'base of media URLs (default: <url>/media)')
    .option('--faults <spec>', 'inject faults into /api/v1, e.g. "5xx=0.1,html=0.5,429=0.05,retry-after=1,drop=0.05"')
    .option('--seed <n>', 'seed of calculated probabilities and fault draws', integerIn(0, 2 ** 31 - 1))
    .option('--id-offset <n>', 'first id (default 3000000000, so clients meet ids above 2^31)', integerIn(1, 2 ** 52))
    .option('-v, --verbose', 'log every request (token redacted) on stderr')
    .addHelpText(
      'after',
      `
Prints "listening on <url>" on stdout once it serves; REST V1 is under <url>/api/v1, GraphQL (HTTP and WebSocket) at <url>/graphql.
Logs go to stderr; tokens are never printed. Stop with Ctrl-C or SIGTERM. With
--db FILE all data survives a restart (stations, detections, uploaded audio).
Tokens given with --token are visible to other users in the process list: prefer
--stations FILE for anything but a quick try.

Fault spec keys: 5xx, html (share of 5xx sent as an HTML gateway page), 429,
retry-after (s), latency (ms), timeout (never answer), drop (store, then cut the
connection), drift (answers in the shapes the real service has drifted to),
methods (GET+POST; default POST), paths (regular expression).
${examples(
  'station-agent emulator --port 8080 --token my-test-token',
  'station-agent emulator --db ./service.db --stations ./stations.json',
  'STATION_AGENT_ADMIN_TOKEN=... station-agent emulator --port 8080 --stations ./stations.json',
  'station-agent emulator --token t1 --faults "5xx=0.1,html=0.5,drop=0.05" --seed 7',
)}`,
    )
    .action(async (flags: EmulatorFlags) => {
      const stop = new Promise<NodeJS.Signals>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      await runEmulatorCommand(flags, { stdout: process.stdout, stop });
    });
}
