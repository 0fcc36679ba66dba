import { spawn, type ChildProcess } from 'node:child_process';
import { AGENT_CLI, AGENT_NODE } from '../../helpers/cli.js';
import { REPO_ROOT } from '../../helpers/paths.js';

/**
 * `station-agent run` as a separate process (the compiled CLI), so that a test can
 * kill it with SIGKILL at any point, as a power cut or the OOM killer would.
 */
export interface AgentProcess {
  child: ChildProcess;
  pid: number;
  /** JSON log lines (stdout) and anything on stderr, as they came. */
  lines: string[];
  /** Resolves when the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves when a log line matches (rejects if the process exits first). */
  waitForLine(match: RegExp, timeoutMs?: number): Promise<string>;
  kill(signal: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface StartAgentOptions {
  /** Runs the CLI through this command (e.g. `unshare` into a mount namespace). */
  wrap?: (cliArgs: string[]) => { command: string; args: string[] };
  env?: Record<string, string>;
}

export function startAgentProcess(configPath: string, options: StartAgentOptions = {}): AgentProcess {
  const cliArgs = [AGENT_NODE, AGENT_CLI, 'run', '--config', configPath];
  const { command, args } = options.wrap ? options.wrap(cliArgs) : { command: cliArgs[0], args: cliArgs.slice(1) };
  const child = spawn(command, args, {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, LANG: 'C.UTF-8', TZ: 'UTC', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const listeners = new Set<() => void>();
  const collect = (stream: NodeJS.ReadableStream) => {
    let buffer = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      buffer += chunk;
      const parts = buffer.split('\n');
      buffer = parts.pop()!;
      for (const line of parts) if (line) lines.push(line);
      for (const l of listeners) l();
    });
  };
  collect(child.stdout);
  collect(child.stderr);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('exit', (code, signal) => {
      resolve({ code, signal });
      for (const l of listeners) l();
    });
  });
  let exitInfo: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  void exited.then((e) => (exitInfo = e));

  return {
    child,
    pid: child.pid!,
    lines,
    exited,
    waitForLine(match, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        let from = 0;
        const check = () => {
          for (; from < lines.length; from++) {
            if (match.test(lines[from])) {
              done();
              resolve(lines[from]);
              return;
            }
          }
          if (exitInfo) {
            done();
            reject(new Error(`the agent exited (${JSON.stringify(exitInfo)}) before logging ${match}:\n${lines.slice(-30).join('\n')}`));
          }
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`no log line ${match} within ${timeoutMs} ms:\n${lines.slice(-30).join('\n')}`));
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        check();
      });
    },
    async kill(signal) {
      if (!exitInfo) child.kill(signal);
      return exited;
    },
  };
}

/** Parsed JSON log lines (others skipped). */
export function logRecords(lines: readonly string[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const line of lines) {
    if (!line.startsWith('{')) continue;
    try {
      out.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      // A line cut by SIGKILL.
    }
  }
  return out;
}
