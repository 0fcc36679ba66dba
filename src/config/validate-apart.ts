import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ConfigError } from './errors.js';
import type { LayerInputs, ValidatedLayers } from './validate.js';

/**
 * Validation in a short-lived child process, for the daemon. zod and the schema cost a
 * process about 23 MB of resident memory (RssAnon +14, RssFile +10 here), and the daemon,
 * which lives for months, would keep them to its end: an ES module cannot be unloaded,
 * and a worker thread that validates and exits still leaves 15 MB behind (its malloc
 * arena, the binary's pages it touched). A child costs one more node start (about 0.2 s
 * here) on a start or reload whose config changed; an unchanged config comes from the
 * cache (cache.ts) without either.
 *
 * The layers travel on the child's standard input (a pipe: the token in them is never
 * written anywhere); the answer holds no token. When the child cannot run or answer
 * (no compiled script beside this module, as when the sources run under the tests, a
 * failed spawn, a crash, a child stopped or stuck past its limit, which is then killed
 * with SIGKILL: a SIGSTOPped child ignores SIGTERM until continued, and would hold the start or
 * reload for ever), the daemon validates in its own process: slower on memory, same
 * result; the first time in a process, it says why ({@link ApartResult}'s `fallback`).
 */
export type ChildAnswer = { ok: true; validated: ValidatedLayers } | { ok: false; problems: string[] };

export interface ApartResult {
  validated: ValidatedLayers;
  /** Why the validation ran in this process instead, the first time it did in this process; else null. */
  fallback: string | null;
}

const CHILD_SCRIPT = fileURLToPath(new URL('./validate-child.js', import.meta.url));

/** A Pi Zero 2 W loads zod and the schema in about 2 s; a child silent for this long is stuck. */
const CHILD_TIMEOUT_MS = 60_000;

let fallbackSaid = false;

export async function validateApart(inputs: LayerInputs, options: { timeoutMs?: number } = {}): Promise<ApartResult> {
  let why = `the validating process (${CHILD_SCRIPT}) is missing`;
  const answer = existsSync(CHILD_SCRIPT)
    ? await askChild(inputs, options.timeoutMs ?? CHILD_TIMEOUT_MS).catch((err: unknown) => {
        why = (err as Error).message;
        return null;
      })
    : null;
  if (!answer) {
    const { validateLayers } = await import('./validate.js');
    const validated = validateLayers(inputs);
    const fallback = fallbackSaid ? null : `the config was validated in this process (zod and the schema stay loaded): ${why}`;
    fallbackSaid = true;
    return { validated, fallback };
  }
  if (!answer.ok) throw new ConfigError(answer.problems, inputs.filePath, inputs.context);
  return { validated: answer.validated, fallback: null };
}

async function askChild(inputs: LayerInputs, timeoutMs: number): Promise<ChildAnswer> {
  // Loaded only when a changed config is validated: a restart with the same one never needs it.
  const { spawn } = await import('node:child_process');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD_SCRIPT], { stdio: ['pipe', 'pipe', 'ignore'], timeout: timeoutMs, killSignal: 'SIGKILL' });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.once('error', reject);
    child.once('close', (code, signal) => {
      if (code !== 0) {
        const stuck = signal === 'SIGKILL' ? ` (no answer within ${timeoutMs / 1000} s)` : '';
        return reject(new Error(`the validating process ended with ${signal ?? `code ${code}`}${stuck}`));
      }
      try {
        resolve(JSON.parse(out) as ChildAnswer);
      } catch {
        reject(new Error('the validating process answered something other than JSON'));
      }
    });
    // A child that dies before reading its input must not end this process with EPIPE.
    child.stdin.once('error', () => {});
    child.stdin.end(JSON.stringify(inputs));
  });
}
