import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/errors.js';
import { loadConfig, type LoadedConfig } from '../../src/config/load.js';
import { buildCli } from '../helpers/cli.js';
import { REPO_ROOT, tempDir } from '../helpers/paths.js';
import { until } from '../helpers/until.js';
import { minimalConfig, writeConfig } from './config-files.js';

/**
 * Validation in a child process (src/config/validate-apart.ts), the daemon's way: the
 * compiled loader runs in a process of its own with the module-trace hook, so the test
 * sees that the validation ran in its child (zod and the schema never in the loading
 * process), and that the result is what validation in the process gives: the config,
 * the warnings, the token from each of its sources, the problems of an invalid file.
 */
const TOKEN = 'tok-apart-81c0d2e7f4';
const TRACE_HOOK = path.join(REPO_ROOT, 'test/helpers/module-trace/register.mjs');
const LOAD = path.join(REPO_ROOT, 'dist/config/load.js');

/** Loads `file` with the compiled loader and `validateApart`, in a process of its own: its answer (or error) and its pid. */
const SCRIPT = `
const { loadConfig } = await import(process.argv[1]);
try {
  const loaded = await loadConfig({ path: process.argv[2], cache: false, validateApart: true });
  console.log(JSON.stringify({ pid: process.pid, loaded }));
} catch (err) {
  console.log(JSON.stringify({ pid: process.pid, error: { code: err.code, problems: err.problems, message: err.message } }));
}`;

interface Answer {
  pid: number;
  loaded?: LoadedConfig;
  error?: { code: string; problems: string[]; message: string };
}

let tmp: ReturnType<typeof tempDir>;
beforeAll(async () => {
  await buildCli();
  tmp = tempDir('station-agent-validate-apart-');
}, 180_000);
afterAll(() => tmp?.cleanup());

let runs = 0;
async function loadApart(file: string, env: Record<string, string> = {}): Promise<{ answer: Answer; parent: string[]; child: string[] }> {
  const trace = path.join(tmp.dir, `trace-${++runs}`);
  const stdout = await new Promise<string>((resolve, reject) => {
    execFile(
      process.execPath,
      ['--input-type=module', '-e', SCRIPT, LOAD, file],
      { env: { PATH: process.env.PATH, NODE_OPTIONS: `--import=${TRACE_HOOK}`, MODULE_TRACE_FILE: trace, ...env } },
      (err, out, errOut) => (err ? reject(new Error(`${err.message}\n${errOut}`)) : resolve(out)),
    );
  });
  const answer = JSON.parse(stdout) as Answer;
  const lines = existsSync(trace) ? readFileSync(trace, 'utf8').split('\n').filter(Boolean) : [];
  const urls = (mine: boolean) => lines.filter((l) => (Number(l.split(' ')[0]) === answer.pid) === mine).map((l) => l.split(' ')[1]);
  return { answer, parent: urls(true), child: urls(false) };
}

const validatedIn = (urls: string[]) => urls.some((u) => u.endsWith('/dist/config/validate.js'));

function fileWith(name: string, service: Record<string, unknown>, extra: Record<string, unknown> = {}): string {
  const dir = path.join(tmp.dir, name);
  mkdirSync(dir, { recursive: true });
  const c = minimalConfig();
  return writeConfig(dir, { ...c, ...extra, dataDir: path.join(dir, 'data'), service: { ...c.service, ...service } });
}

describe('validation in a child process', () => {
  it('gives what validation in the process gives, with the token from the file, and the loading process loads no schema', async () => {
    const file = fileWith('in-file', { token: TOKEN }, { upload: { windows: ['22:00-06:00'], concurrency: 3 } });
    const { answer, parent, child } = await loadApart(file);
    expect(answer.loaded).toEqual(await loadConfig({ path: file, env: {}, cache: false }));
    expect(answer.loaded?.config.service.token).toBe(TOKEN);
    expect(validatedIn(parent), 'schema loaded by the loading process').toBe(false);
    expect(parent.some((u) => u.includes('/node_modules/zod/'))).toBe(false);
    expect(validatedIn(child), 'validated in the child').toBe(true);
  });

  it('takes the token from the environment and from a token file as validation in the process does', async () => {
    const fromEnv = fileWith('in-env', {});
    const env = { STATION_AGENT_TOKEN: TOKEN, STATION_AGENT_UPLOAD_CONCURRENCY: '2' };
    const envRun = await loadApart(fromEnv, env);
    expect(envRun.answer.loaded).toEqual(await loadConfig({ path: fromEnv, env, cache: false }));
    expect(envRun.answer.loaded?.tokenSource).toBe('env');
    expect(envRun.answer.loaded?.config.service.token).toBe(TOKEN);

    const tokenFile = path.join(tmp.dir, 'token');
    writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
    const fromTokenFile = fileWith('in-token-file', { tokenFile });
    const fileRun = await loadApart(fromTokenFile);
    expect(fileRun.answer.loaded).toEqual(await loadConfig({ path: fromTokenFile, env: {}, cache: false }));
    expect(fileRun.answer.loaded?.config.service.token).toBe(TOKEN);
    expect(validatedIn(envRun.parent) || validatedIn(fileRun.parent)).toBe(false);
  });

  it('reports an invalid config with the problems validation in the process gives, the token pasted into another key never shown', async () => {
    const file = fileWith('invalid', { token: TOKEN, timeoutMs: -1 }, { mqtt: { clientId: TOKEN, url: 42 } });
    const { answer, parent, child } = await loadApart(file);
    const inProcess = await loadConfig({ path: file, env: {}, cache: false }).catch((err: unknown) => err);
    expect(inProcess).toBeInstanceOf(ConfigError);
    expect(answer.error?.code).toBe('ERR_CONFIG_INVALID');
    expect(answer.error?.problems).toEqual((inProcess as ConfigError).problems);
    expect(answer.error?.message).toBe((inProcess as ConfigError).message);
    expect(answer.error?.message).not.toContain(TOKEN);
    expect(validatedIn(parent)).toBe(false);
    expect(validatedIn(child)).toBe(true);
  });
});

/** Calls the compiled validateApart itself (twice), with a limit of `timeoutMs`: its answers, or the error. */
const APART_SCRIPT = `
const { validateApart } = await import(process.argv[1]);
const [file, timeoutMs] = [process.argv[2], Number(process.argv[3])];
const { readFileSync } = await import('node:fs');
const inputs = { file, filePath: file, fileValues: JSON.parse(readFileSync(file, 'utf8')), context: 'test', env: {}, cwd: process.cwd(), overrides: undefined };
const answers = [];
for (let i = 0; i < 2; i++) {
  const { validated, fallback } = await validateApart(inputs, { timeoutMs });
  answers.push({ concurrency: validated.config.upload.concurrency, fallback });
}
console.log(JSON.stringify(answers));`;
const APART = path.join(REPO_ROOT, 'dist/config/validate-apart.js');

/** The pids of the running validation children whose parent is `ppid`. */
function validationChildren(ppid: number): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parent === ppid && readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('validate-child.js')) pids.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}

describe('a validation child that does not answer', () => {
  it('is killed at its limit, and the config is validated in the process, which says why once', async () => {
    const file = fileWith('no-answer', { token: TOKEN }, { upload: { concurrency: 3 } });
    // A limit of 1 ms: every child is killed before it answers.
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(process.execPath, ['--input-type=module', '-e', APART_SCRIPT, APART, file, '1'], (err, out, errOut) =>
        err ? reject(new Error(`${err.message}\n${errOut}`)) : resolve(out),
      );
    });
    const answers = JSON.parse(stdout) as { concurrency: number; fallback: string | null }[];
    expect(answers.map((a) => a.concurrency)).toEqual([3, 3]);
    expect(answers[0].fallback).toMatch(/^the config was validated in this process .*: the validating process ended with SIGKILL \(no answer within 0\.001 s\)$/);
    expect(answers[1].fallback).toBeNull();
  });

  it('SIGSTOPped, holds the validation no longer than its limit (SIGKILL: a stopped process ignores SIGTERM)', async () => {
    const file = fileWith('stopped', { token: TOKEN }, { upload: { concurrency: 2 } });
    const script = execFile(process.execPath, ['--input-type=module', '-e', APART_SCRIPT, APART, file, '20000']);
    let stdout = '';
    script.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    const exited = new Promise<number | null>((resolve) => script.once('close', resolve));
    // The first child, stopped as soon as it runs.
    let stopped: number | undefined;
    await until('the validation child runs', () => {
      stopped = validationChildren(script.pid as number)[0];
      return stopped !== undefined;
    }, 30_000);
    process.kill(stopped as number, 'SIGSTOP');
    expect(await exited).toBe(0);
    const answers = JSON.parse(stdout) as { concurrency: number; fallback: string | null }[];
    expect(answers[0]).toEqual({ concurrency: 2, fallback: expect.stringContaining('ended with SIGKILL (no answer within 20 s)') as string });
    // The next one, not stopped, answers.
    expect(answers[1]).toEqual({ concurrency: 2, fallback: null });
    expect(existsSync(`/proc/${stopped}`)).toBe(false);
  }, 120_000);
});
