import { styleFor, type Style } from './style.js';
import { writeJson, type TextSink } from './json.js';

/**
 * Where a command writes: data on stdout (a table for people, JSON with `--json`),
 * logs, warnings and progress on stderr, so `station-agent ... --json | jq` sees
 * only the document. Each stream gets its own colours (one may be a terminal while
 * the other is piped).
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
  return {
    line: (text = '') => void stdout.write(`${text}\n`),
    lines: (texts) => void (texts.length ? stdout.write(`${texts.join('\n')}\n`) : undefined),
    json: (value) => writeJson(stdout, value),
    note: (text) => void stderr.write(`${text}\n`),
    warn: (text) => void stderr.write(`${errStyle.yellow('warning:')} ${text}\n`),
    style,
    errStyle,
    stdout,
    stderr,
  };
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
