import { styleFor, type Style } from './style.js';
import { writeJson, type TextSink } from './json.js';
import { redactSecrets } from '../../wire/redact.js';

/**
 * Where a command writes: data on stdout (a table for people, JSON with `--json`),
 * logs, warnings and progress on stderr, so `station-agent ... --json | jq` sees
 * only the document. Each stream gets its own colours (one may be a terminal while
 * the other is piped).
 *
 * Everything written is cleared of the secrets in the process's registry (src/wire/redact.ts):
 * a token pasted into `input.dir` or `dataDir` would otherwise be printed with the folder.
 */
export interface Output {
  /** One line of data on stdout. */
  line: (text?: string) => void;
  lines: (texts: readonly string[]) => void;
  /** A JSON document on stdout. */
  json: (value: unknown) => void;
  /** One line on stderr. */
  note: (text: string) => void;
  /** `warning: ...` on stderr. */
  warn: (text: string) => void;
  readonly style: Style;
  readonly errStyle: Style;
  readonly stdout: TextSink;
  readonly stderr: TextSink & { isTTY?: boolean };
}

export function createOutput(
  stdout: NodeJS.WriteStream = process.stdout,
  stderr: NodeJS.WriteStream = process.stderr,
  env: NodeJS.ProcessEnv = process.env,
): Output {
  quietOnClosedPipe(stdout);
  const style = styleFor(stdout, env);
  const errStyle = styleFor(stderr, env);
  const out = withoutSecrets(stdout);
  const err = Object.assign(withoutSecrets(stderr), { isTTY: stderr.isTTY });
  return {
    line: (text = '') => void out.write(`${text}\n`),
    lines: (texts) => void (texts.length ? out.write(`${texts.join('\n')}\n`) : undefined),
    json: (value) => writeJson(out, value),
    note: (text) => void err.write(`${text}\n`),
    warn: (text) => void err.write(`${errStyle.yellow('warning:')} ${text}\n`),
    style,
    errStyle,
    stdout: out,
    stderr: err,
  };
}

/** A sink that writes to `stream` what it is given, every secret registered so far replaced by `<redacted>`. */
function withoutSecrets(stream: TextSink): TextSink {
  return { write: (chunk: string) => stream.write(redactSecrets(chunk)) };
}

const guarded = new WeakSet<NodeJS.WriteStream>();

/**
 * `station-agent api detections --all | head` closes the pipe early: that is the
 * reader saying "enough", not an error worth a stack trace. Exit quietly.
 */
function quietOnClosedPipe(stream: NodeJS.WriteStream): void {
  if (guarded.has(stream)) return;
  guarded.add(stream);
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
}
