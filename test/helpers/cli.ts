import { spawn, execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './paths.js';
import { until } from './until.js';

/**
 * Runs the real CLI as a process: `node dist/bundle/main.js ...` (what bin/station-agent
 * runs), after compiling and bundling the
 * project (the agent and its development packages) once per test run. Processes are started asynchronously (never
 * spawnSync): the local service the CLI talks to runs in the test's own process.
 */

export const CLI_MAIN = path.join(REPO_ROOT, 'dist/bundle/main.js');

/**
 * What tests spawn as the agent: this Node and the compiled CLI, unless
 * STATION_AGENT_NODE and STATION_AGENT_CLI name others. `npm run test:arm64`
 * (scripts/test-arm64.sh) points them at an arm64 node under qemu and an installed
 * tree's bin/station-agent, so the same tests run the agent on arm64.
 */
export const AGENT_NODE = process.env.STATION_AGENT_NODE || process.execPath;
export const AGENT_CLI = process.env.STATION_AGENT_CLI || CLI_MAIN;
/** Written by `npm run build` (scripts/build-stamp.mjs) and by buildCli below. */
const STAMP = path.join(REPO_ROOT, 'dist/.cli-test-build-stamp');
const BUNDLE_SCRIPT = 'scripts/bundle.mjs';
/** tsc's own output of the CLI's entry, which the bundle is made from. */
const TSC_MAIN = path.join(REPO_ROOT, 'dist/cli/main.js');
const LOCK = path.join(REPO_ROOT, 'dist/.cli-test-build-lock');
const LOCK_STALE_MS = 180_000;

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunCliOptions {
  /** Added to a minimal environment (PATH, HOME, LANG); nothing of the test's own STATION_AGENT_* leaks in. `undefined` removes a variable. */
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** Written to the CLI's stdin (a pipe, so never a TTY), then closed. */
  input?: string;
  timeoutMs?: number;
}

/**
 * What `npm run build` does, in its order: compiles the agent (`dist/`) and bundles it
 * (`dist/bundle/`, what the CLI runs: scripts/bundle.mjs), then compiles the local service
 * and the demo (their own packages, which `station-agent emulator` and `demo` load), then
 * the benchmark; and the source folders each build reads.
 */
const BUILDS = ['tsconfig.build.json', BUNDLE_SCRIPT, 'emulator/tsconfig.build.json', 'demo/tsconfig.build.json', 'bench/tsconfig.build.json'];
const SOURCES = ['src', 'emulator/src', 'demo/src', 'bench/src'];

/** Compiles the project (every build above) unless the last build is newer than every source file. Safe across parallel test workers. */
export async function buildCli(): Promise<void> {
  mkdirSync(path.dirname(LOCK), { recursive: true });
  await acquireLock();
  try {
    if (existsSync(CLI_MAIN) && existsSync(STAMP) && statSync(STAMP).mtimeMs >= newestSource()) return;
    for (const project of BUILDS) await compile(project);
    writeFileSync(STAMP, new Date().toISOString());
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

async function compile(project: string): Promise<void> {
  const result = await new Promise<{ code: number; output: string }>((resolve) => {
    execFile(
      process.execPath,
      project === BUNDLE_SCRIPT ? [project] : [path.join(REPO_ROOT, 'node_modules/typescript/bin/tsc'), '-p', project],
      { cwd: REPO_ROOT, maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, output: stdout + stderr }),
    );
  });
  if (result.code !== 0) {
    // Type errors still emit JavaScript; files of work in progress elsewhere must not block these tests.
    if (project === BUNDLE_SCRIPT || !existsSync(TSC_MAIN)) throw new Error(`${project} failed:\n${result.output}`);
    console.warn(`tsc -p ${project} reported errors (JavaScript was emitted):\n${result.output.slice(0, 4000)}`);
  }
}

export function runCli(args: readonly string[], options: RunCliOptions = {}): Promise<CliResult> {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    LANG: 'C.UTF-8',
    TZ: 'UTC',
  };
  for (const [k, v] of Object.entries(options.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return new Promise((resolve, reject) => {
    const child = spawn(AGENT_NODE, [AGENT_CLI, ...args], { cwd: options.cwd ?? REPO_ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`station-agent ${args.join(' ')} did not finish within ${options.timeoutMs ?? 20_000} ms\nstderr: ${Buffer.concat(err).toString()}`));
    }, options.timeoutMs ?? 20_000);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? (signal ? 128 : 1), stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() });
    });
    child.stdin.on('error', () => {
      // The CLI may exit before reading its input.
    });
    child.stdin.end(options.input ?? '');
  });
}

export interface CliConfigOptions {
  baseUrl: string;
  /** Written into the file (mode 600); omit to pass STATION_AGENT_TOKEN instead. */
  token?: string;
  dataDir: string;
  inputDir: string;
  /** Merged over the generated config (one level deep per section). */
  extra?: Record<string, unknown>;
}

/** Writes a complete, valid config file (creating its input folder) and returns its path. */
export function writeCliConfig(file: string, o: CliConfigOptions): string {
  mkdirSync(o.inputDir, { recursive: true });
  const config: Record<string, Record<string, unknown> | string> = {
    service: { baseUrl: o.baseUrl, timeoutMs: 5_000, ...(o.token ? { token: o.token } : {}) },
    station: { latitude: 52.52, longitude: 13.4, timezone: 'Europe/Berlin' },
    input: { dir: o.inputDir },
    dataDir: o.dataDir,
  };
  for (const [key, value] of Object.entries(o.extra ?? {})) {
    const current = config[key];
    config[key] = typeof value === 'object' && value !== null && typeof current === 'object' ? { ...current, ...value } : (value as string);
  }
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  return file;
}

/** Parses stdout as JSON, failing with the CLI's output when it is not. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read whatever the CLI printed
export function parseJson<T = any>(result: CliResult): T {
  try {
    return JSON.parse(result.stdout) as T;
  } catch {
    throw new Error(`stdout is not JSON (exit ${result.code}):\n${result.stdout}\nstderr:\n${result.stderr}`);
  }
}

async function acquireLock(): Promise<void> {
  // Another test file builds meanwhile: its lock goes when it is done, or is taken over once stale.
  await until('the build lock', tryLock, LOCK_STALE_MS * 2);
}

function tryLock(): boolean {
  try {
    mkdirSync(LOCK);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    try {
      if (Date.now() - statSync(LOCK).mtimeMs > LOCK_STALE_MS) rmSync(LOCK, { recursive: true, force: true });
    } catch {
      // Released meanwhile.
    }
    return false;
  }
}

function newestSource(): number {
  let newest = 0;
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else newest = Math.max(newest, statSync(full).mtimeMs);
    }
  };
  for (const dir of SOURCES) walk(path.join(REPO_ROOT, dir));
  for (const f of ['tsconfig.json', ...BUILDS, 'package.json']) newest = Math.max(newest, statSync(path.join(REPO_ROOT, f)).mtimeMs);
  return newest;
}
