import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, EXIT, EXIT_MEANINGS, NODE_ERROR_CODES, TRANSIENT_SYSTEM_CODES, errorCode, exitKind, isTransient, type RegisteredCode, type StationAgentError } from '../../src/errors.js';
import { HttpStatusError, NetworkError, OutcomeUnknownError, ServiceRejectedError } from '../../src/api/errors.js';
import { AudioFileError, FlacEncoderError } from '../../src/audio/errors.js';
import { AuditError } from '../../src/audit/errors.js';
import { UsageError, CommandFailure } from '../../src/cli/commands/support/errors.js';
import { ConfigError } from '../../src/config/errors.js';
import { SecretFileError } from '../../src/config/secret-files.js';
import { IngestError, LabelsFileError, NoRecordingStartError, ResultFileError } from '../../src/ingest/errors.js';
import { DiskFullError } from '../../src/ingest/spool.js';
import { MetricsError } from '../../src/metrics/errors.js';
import { MqttError } from '../../src/mqtt/errors.js';
import { ReceiverError } from '../../src/alerts/receiver.js';
import { QueueDatabaseError, QueueError, QueueTransitionError } from '../../src/queue/errors.js';
import { DaemonLockError, DaemonLockFileError } from '../../src/system/daemon-lock.js';
import { DeadlineError } from '../../src/system/deadline.js';
import { FileTooLargeError, NotRegularFileError } from '../../src/system/regular-file.js';
import { DemoError } from '../../demo/src/errors.js';
import { isAudioFault } from '../../src/encode/limits.js';
import { REPO_ROOT } from '../helpers/paths.js';

/**
 * The error-code register (src/errors.ts) against the code and the docs:
 *
 * - every error class of `src/` (and the demo's) is here with an instance of each code it
 *   takes, and the register names that class (or a class it extends) for the code;
 * - every `ERR_` literal of `src/` is a code of the register (or one of Node's own), and
 *   every `new X('ERR_...')` builds the class the register names: a new code cannot
 *   appear without its row;
 * - docs/ARCHITECTURE.md's "Error codes" has one row per code with the register's class,
 *   exit code, transience and meaning, and docs/OPERATOR.md's "Exit codes" is the CLI's.
 */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : [],
  );
}

const FILES = [...sources(path.join(REPO_ROOT, 'src')), ...sources(path.join(REPO_ROOT, 'demo/src'))].map((file) => ({
  file: path.relative(REPO_ROOT, file),
  text: readFileSync(file, 'utf8'),
}));

const REQ = 'POST /api/v1/stations/<redacted>/detections';

/** One instance of every code each class of the agent takes. */
const INSTANCES: StationAgentError[] = [
  new NetworkError('connect ECONNREFUSED', REQ, 'ECONNREFUSED'),
  new OutcomeUnknownError('headers timeout', REQ),
  new HttpStatusError(REQ, { status: 500, body: null, serverMessage: undefined, errors: undefined, html: false, retryAfterMs: undefined }),
  new ServiceRejectedError('created without an id', REQ, 201, {}, 'detection.id'),
  new DeadlineError('the service', 1000),
  new AudioFileError('a.wav', 'not-riff', 'not a WAV'),
  new FlacEncoderError('the worker died'),
  new NotRegularFileError('a.wav', 'a FIFO (named pipe)'),
  new FileTooLargeError('config.json', 1024),
  new DiskFullError('no space'),
  new ResultFileError('a.csv', 'no header'),
  new NoRecordingStartError('a.csv'),
  new IngestError('a.csv', new Error('a bug')),
  new LabelsFileError('labels.txt', 'empty'),
  new QueueDatabaseError('not a database'),
  new QueueError('ERR_QUEUE_TRANSITION', 'no transition'),
  new QueueTransitionError('d1', 'uploaded', 'pending', ['failed']),
  new QueueError('ERR_QUEUE_NOT_FOUND', 'no d1'),
  new QueueError('ERR_QUEUE_INVALID', 'bad id'),
  new ConfigError(['x is wrong'], null),
  new SecretFileError('service.tokenFile', 'is empty'),
  new DaemonLockError('/var/lib/station-agent', 12),
  new DaemonLockFileError('daemon.lock', new Error('EACCES')),
  new MetricsError('address taken'),
  new AuditError('a listing that does not end'),
  new MqttError('ERR_MQTT_CONFIG', 'CA file unreadable'),
  new MqttError('ERR_MQTT_BROKER', 'refused'),
  new MqttError('ERR_MQTT_PUBLISH', 'not acknowledged'),
  new ReceiverError('alert webhook https://hooks.example: HTTP 500', 500, undefined),
  new UsageError('--x without --y'),
  new CommandFailure('no d1'),
  new DemoError('stalled'),
];

type Entry = (typeof ERROR_CODES)[RegisteredCode];
const entries = Object.entries(ERROR_CODES) as [RegisteredCode, Entry][];
const classOf = (e: Entry): string | undefined => ('class' in e ? e.class : undefined);

/** The names of an instance's class and the classes it extends. */
function lineage(err: object): string[] {
  const names: string[] = [];
  for (let p = Object.getPrototypeOf(err); p && p !== Error.prototype; p = Object.getPrototypeOf(p)) names.push(p.constructor.name);
  return names;
}

describe('the error-code register', () => {
  it('has an instance here of every class of src/ that extends StationAgentError', () => {
    const parents = new Map<string, string>();
    for (const { text } of FILES) for (const m of text.matchAll(/class (\w+) extends (\w+)/g)) parents.set(m[1], m[2]);
    const isAgentError = (name: string): boolean => {
      for (let n: string | undefined = name, i = 0; n && i < 10; n = parents.get(n), i++) if (n === 'StationAgentError') return true;
      return false;
    };
    const abstract = new Set(FILES.flatMap(({ text }) => [...text.matchAll(/abstract class (\w+)/g)].map((m) => m[1])));
    const classes = [...parents.keys()].filter((c) => isAgentError(c) && !abstract.has(c) && c !== 'StationAgentError');
    expect(classes.filter((c) => !INSTANCES.some((e) => e.name === c)).sort()).toEqual([]);
  });

  it('gives each code of an instance to its class, or to a class it extends', () => {
    const wrong = INSTANCES.filter((e) => !lineage(e).includes(classOf(ERROR_CODES[e.code]) ?? '')).map((e) => `${e.name} ${e.code}`);
    expect(wrong).toEqual([]);
  });

  it('has an instance of every code a class declares, and names only classes that exist', () => {
    const classCodes = entries.filter(([, e]) => 'class' in e && e.class !== 'Error').map(([code]) => code);
    expect(classCodes.filter((c) => !INSTANCES.some((e) => e.code === c)).sort()).toEqual([]);
    const causeHomes = entries.flatMap(([, e]) => ('in' in e ? [e.in] : []));
    expect(causeHomes.filter((c) => !INSTANCES.some((e) => e.name === c))).toEqual([]);
  });

  it('gives every code of a class the same exit code: exit codes by class', () => {
    const exits = new Map<string, Set<string>>();
    for (const [, e] of entries) if ('class' in e) exits.set(e.class, (exits.get(e.class) ?? new Set()).add(e.exit));
    expect([...exits].filter(([, s]) => s.size > 1).map(([c]) => c)).toEqual([]);
  });

  it('holds every ERR_ literal of src/: a code of the register, or one of Node.js', () => {
    const unknown = FILES.flatMap(({ file, text }) =>
      [...text.matchAll(/['"`](ERR_[A-Z0-9_]+)['"`]/g)].map((m) => m[1]).filter((c) => !Object.hasOwn(ERROR_CODES, c) && !NODE_ERROR_CODES.has(c)).map((c) => `${file}: ${c}`),
    );
    expect(unknown).toEqual([]);
  });

  it('builds, at every `new X(\'ERR_...\')` of src/, the class the register names for the code', () => {
    const wrong = FILES.flatMap(({ file, text }) =>
      [...text.matchAll(/new (\w+)\(\s*'(ERR_[A-Z0-9_]+)'/g)]
        .filter((m) => {
          const e: Entry | undefined = (ERROR_CODES as Record<string, Entry>)[m[2]];
          return !e || classOf(e) !== m[1];
        })
        .map((m) => `${file}: new ${m[1]}('${m[2]}')`),
    );
    expect(wrong).toEqual([]);
  });

  it('says each class code\'s exit code: by the error, however it crossed a boundary', () => {
    for (const e of INSTANCES) expect(exitKind(e), e.name).toBe((ERROR_CODES[e.code] as { exit: string }).exit);
    // A worker's error keeps its code, not its class (src/audio/flac-worker-protocol.ts).
    expect(exitKind(Object.assign(new Error('x'), { code: 'ERR_CONFIG_INVALID' }))).toBe('CONFIG');
    expect(exitKind(new Error('x'))).toBe('FAILURE');
    expect(exitKind(Object.assign(new Error('x'), { code: 'SQLITE_BUSY' }))).toBe('FAILURE');
  });
});

describe('isTransient: the one rule of what may pass by itself', () => {
  it.each([
    ['ENOSPC', true],
    ['EDQUOT', true],
    ['EIO', true],
    ['EMFILE', true],
    ['ENFILE', true],
    ['SQLITE_BUSY', true],
    ['SQLITE_BUSY_SNAPSHOT', true],
    ['SQLITE_LOCKED', true],
    ['SQLITE_FULL', true],
    ['SQLITE_IOERR_WRITE', true],
    ['SQLITE_CORRUPT', false],
    ['SQLITE_NOTADB', false],
    ['SQLITE_READONLY', false],
    ['SQLITE_CONSTRAINT_UNIQUE', false],
    ['SQLITE_BUSYNESS', false],
    ['ENOENT', false],
    ['EACCES', false],
    ['ERR_QUEUE', true],
    ['ERR_QUEUE_TRANSITION', true],
    ['ERR_QUEUE_INVALID', false],
    ['ERR_QUEUE_NOT_FOUND', false],
    ['ERR_DISK_FULL', true],
    ['ERR_FLAC_ENCODER', true],
    ['ERR_NETWORK_BEFORE_SEND', true],
    ['ERR_AUDIO_INVALID', false],
    ['ERR_RESULT_FILE', false],
    ['ERR_INGEST', false],
    ['ERR_UNKNOWN', false],
    ['ERR_SPECIES_GATE', false],
    ['toString', false],
  ])('%s: %s', (code, transient) => {
    expect(isTransient(code)).toBe(transient);
  });
});

describe("the encode step's audio faults (src/encode/limits.ts) beside the rule", () => {
  // The encode step asks whose failure it is: the audio's fails the recording, any other waits
  // and tries again. A failure that passes by itself is never the audio's, and the audio's never passes.
  it('is never a transient failure, and no transient failure is one', () => {
    const errors: unknown[] = [
      ...INSTANCES,
      ...TRANSIENT_SYSTEM_CODES.map((c) => Object.assign(new Error(c), { code: c.replace('*', '_X') })),
      Object.assign(new Error('gone'), { code: 'ENOENT' }),
      new Error('a fault of the agent'),
    ];
    const both = errors.filter((e) => isAudioFault(e) && isTransient(errorCode(e))).map((e) => errorCode(e));
    expect(both).toEqual([]);
    expect(errors.filter((e) => isAudioFault(e)).map((e) => errorCode(e)).sort()).toEqual(['ENOENT', 'ERR_AUDIO_INVALID', 'ERR_NOT_REGULAR_FILE']);
  });
});

/** A section of a doc, from its `## title` to the next. */
function section(doc: string, title: string): string {
  const text = readFileSync(path.join(REPO_ROOT, doc), 'utf8');
  const body = text.split(`\n## ${title}\n`)[1]?.split('\n## ')[0];
  if (!body) throw new Error(`${doc} has no section "${title}"`);
  return body;
}

/** The rows of a section's markdown table, as cells. */
function tableRows(body: string): string[][] {
  return body
    .split('\n')
    .filter((l) => l.startsWith('| ') && !/^\|[-| ]+\|$/.test(l))
    .slice(1)
    .map((l) => l.slice(2, -2).split(' | '));
}

describe('docs/ARCHITECTURE.md: the error codes', () => {
  const rows = tableRows(section('docs/ARCHITECTURE.md', 'Error codes'));

  /** A register row as the doc's first five cells write it. */
  function cells(code: RegisteredCode, e: Entry): string[] {
    if ('cause' in e) return [`\`${code}\``, `cause in \`${e.in}\``, '', '', e.meaning];
    if ('reason' in e) return [`\`${code}\``, '(queue reason)', '', '', e.meaning];
    return [`\`${code}\``, e.class === 'Error' ? '(any other error)' : `\`${e.class}\``, String(EXIT[e.exit]), e.transient ? 'yes' : 'no', e.meaning];
  }

  it('has one row per code of the register, in its order, with its class, exit code, transience and meaning', () => {
    expect(rows.map((r) => r.slice(0, 5))).toEqual(entries.map(([code, e]) => cells(code, e)));
  });

  it("lists the system's transient codes as the rule has them", () => {
    const sentence = /Of the system's codes,([\s\S]*?) are transient/.exec(section('docs/ARCHITECTURE.md', 'Error codes'))?.[1] ?? '';
    expect([...sentence.matchAll(/`([A-Z_]+\*?)`/g)].map((m) => m[1])).toEqual([...TRANSIENT_SYSTEM_CODES]);
  });

  it('says what happens in each row', () => {
    expect(rows.filter((r) => r.length !== 6 || r[5].trim() === '').map((r) => r[0])).toEqual([]);
  });
});

describe('the exit codes in the docs', () => {
  const keys = Object.keys(EXIT) as (keyof typeof EXIT)[];

  it('docs/OPERATOR.md: is the register\'s table', () => {
    const rows = tableRows(section('docs/OPERATOR.md', 'Exit codes'));
    expect(rows).toEqual(keys.map((k) => [String(EXIT[k]), EXIT_MEANINGS[k].meaning]));
  });

  it('README.md: names every exit code', () => {
    const text = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
    const sentence = /Exit codes:\n([\s\S]*?)\. With `--json`/.exec(text)?.[1] ?? '';
    expect(keys.filter((k) => !new RegExp(`\\b${EXIT[k]} [a-z(]`).test(sentence))).toEqual([]);
  });

  it('the units do not restart after a usage or config error', () => {
    for (const unit of ['systemd/station-agent.service', 'systemd/station-agent@.service']) {
      const text = readFileSync(path.join(REPO_ROOT, unit), 'utf8');
      expect(/^RestartPreventExitStatus=(.*)$/m.exec(text)?.[1], unit).toBe(`${EXIT.USAGE} ${EXIT.CONFIG}`);
    }
  });
});

describe('the docs name only codes of the register', () => {
  // The local service has codes of its own (emulator/src, a package apart that shares only src/wire/).
  const docs = readdirSync(path.join(REPO_ROOT, 'docs')).filter((f) => f.endsWith('.md') && f !== 'EMULATOR.md');
  it.each(['README.md', ...docs.map((f) => `docs/${f}`)])('%s', (doc) => {
    const text = readFileSync(path.join(REPO_ROOT, doc), 'utf8');
    const named = [...text.matchAll(/`(ERR_[A-Z0-9_]+)`/g)].map((m) => m[1]);
    expect(named.filter((c) => !Object.hasOwn(ERROR_CODES, c) && !NODE_ERROR_CODES.has(c))).toEqual([]);
  });
});
