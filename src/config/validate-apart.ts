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
 * failed spawn, a crash), the daemon validates in its own process: slower on memory,
 * same result.
 */
export type ChildAnswer = { ok: true; validated: ValidatedLayers } | { ok: false; problems: string[] };

const CHILD_SCRIPT = fileURLToPath(new URL('./validate-child.js', import.meta.url));

/** A Pi Zero 2 W loads zod and the schema in about 2 s; a child silent for this long is stuck. */
const CHILD_TIMEOUT_MS = 60_000;

export async function validateApart(inputs: LayerInputs): Promise<ValidatedLayers> {
  const answer = existsSync(CHILD_SCRIPT) ? await askChild(inputs).catch(() => null) : null;
  if (!answer) {
    const { validateLayers } = await import('./validate.js');
    return validateLayers(inputs);
  }
  if (!answer.ok) throw new ConfigError(answer.problems, inputs.filePath, inputs.context);
  return answer.validated;
}

async function askChild(inputs: LayerInputs): Promise<ChildAnswer> {
  // Loaded only when a changed config is validated: a restart with the same one never needs it.
  const { spawn } = await import('node:child_process');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD_SCRIPT], { stdio: ['pipe', 'pipe', 'ignore'], timeout: CHILD_TIMEOUT_MS });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.once('error', reject);
    child.once('close', (code, signal) => {
      if (code !== 0) return reject(new Error(`the validating process ended with ${signal ?? `code ${code}`}`));
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
