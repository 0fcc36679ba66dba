import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFlacInfo } from '../../src/audio/flac-info.js';
import { loadNativeFlac } from '../../src/audio/flac-native.js';
import { REPO_ROOT, tempDir } from '../helpers/paths.js';
import { writeWav } from '../helpers/wav-writer.js';
import { decodeFlac } from './support/flac-decode.js';

/**
 * Under vitest the encoder runs in-process (a Worker cannot start from TypeScript
 * sources). This test covers the path production takes: it compiles src/audio with the
 * project's build settings into a temporary folder, then runs the compiled encoder in a
 * separate `node` process, where it starts `flac-worker.js` in a worker thread.
 */

let tmp: ReturnType<typeof tempDir>;
let dist: string;

beforeAll(() => {
  tmp = tempDir('station-agent-flac-dist-');
  dist = path.join(tmp.dir, 'dist');
  // Bare imports (libflacjs) resolve through node_modules, and .js files are ESM.
  symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(tmp.dir, 'node_modules'), 'dir');
  writeFileSync(path.join(tmp.dir, 'package.json'), JSON.stringify({ type: 'module' }));
  // Only this folder's entry points (and what they import), so other folders' work in
  // progress cannot break this test; every other setting comes from tsconfig.build.json.
  writeFileSync(
    path.join(tmp.dir, 'tsconfig.json'),
    JSON.stringify({
      extends: path.join(REPO_ROOT, 'tsconfig.build.json'),
      compilerOptions: { outDir: dist, rootDir: path.join(REPO_ROOT, 'src'), sourceMap: false },
      include: [],
      files: ['flac-encoder.ts', 'flac-worker.ts', 'flac-check.ts'].map((f) => path.join(REPO_ROOT, 'src/audio', f)),
    }),
  );
  const tsc = spawnSync(
    process.execPath,
    [path.join(REPO_ROOT, 'node_modules/typescript/bin/tsc'), '-p', path.join(tmp.dir, 'tsconfig.json')],
    { encoding: 'utf8' },
  );
  if (tsc.status !== 0) throw new Error(`tsc failed:\n${tsc.stdout}\n${tsc.stderr}`);
}, 120_000);

afterAll(() => tmp.cleanup());

// The addon is built by .ci/run (test/audio/flac-native.test.ts insists on it there).
const addonBuilt = await loadNativeFlac().then(
  () => true,
  () => false,
);
const TRACE_HOOK = path.join(REPO_ROOT, 'test/helpers/module-trace/register.mjs');

function runNode(script: string, args: string[], env: Record<string, string> = {}) {
  const file = path.join(tmp.dir, `script-${Math.random().toString(36).slice(2)}.mjs`);
  writeFileSync(file, script);
  const child = spawnSync(process.execPath, [file, ...args], { encoding: 'utf8', timeout: 25_000, env: { ...process.env, ...env } });
  return { status: child.status, signal: child.signal, stdout: child.stdout, stderr: child.stderr };
}

describe('the compiled encoder (dist)', () => {
  it('encodes in its worker thread, bit-exact, and rebuilds AudioFileError from the worker', async () => {
    const src = path.join(tmp.dir, 'in.wav');
    const dest = path.join(tmp.dir, 'out', 'in.flac');
    const bad = path.join(tmp.dir, 'bad.wav');
    const built = writeWav(src, { format: 'pcm24', channels: 2, sampleRate: 48000, frames: 48000 * 5 });
    writeFileSync(bad, 'RIFF\x04\0\0\0AVI ');

    const { status, signal, stdout, stderr } = runNode(
      `
import { createFlacEncoder } from './dist/audio/flac-encoder.js';
import { AudioFileError } from './dist/audio/errors.js';
const [src, dest, bad] = process.argv.slice(2);
const encoder = createFlacEncoder();
const result = await encoder.encode(src, dest);
const error = await encoder.encode(bad, dest + '.bad.flac').catch((e) => ({
  isAudioFileError: e instanceof AudioFileError, name: e.name, code: e.code, reason: e.reason, file: e.file, message: e.message,
}));
await encoder.close();
console.log(JSON.stringify({ result, error }));
`,
      [src, dest, bad],
    );
    expect(stderr).toBe('');
    expect({ status, signal }).toEqual({ status: 0, signal: null });
    const { result, error } = JSON.parse(stdout) as { result: Record<string, unknown>; error: Record<string, unknown> };

    expect(result).toMatchObject({ engine: expect.stringMatching(/^libflacjs .* \(worker thread\)$/), totalSamples: 240000, bitsPerSample: 24 });
    expect(error).toMatchObject({ isAudioFileError: true, name: 'AudioFileError', code: 'ERR_AUDIO_INVALID', reason: 'not-wave', file: bad });
    expect(error.message).toContain(bad);

    expect((await readFlacInfo(dest)).totalSamples).toBe(240000);
    const decoded = await decodeFlac(dest);
    expect(decoded.md5Ok).toBe(true);
    let mismatches = 0;
    for (let i = 0; i < built.samples.length; i++) if (decoded.samples[i] !== built.samples[i]) mismatches++;
    expect(mismatches).toBe(0);
  });

  it('an idle encoder that was never closed does not keep the process alive', () => {
    const src = path.join(tmp.dir, 'idle.wav');
    mkdirSync(path.join(tmp.dir, 'idle'), { recursive: true });
    writeWav(src, { frames: 8000 });
    const { status, signal, stdout } = runNode(
      `
import { createFlacEncoder } from './dist/audio/flac-encoder.js';
const encoder = createFlacEncoder();
const result = await encoder.encode(process.argv[2], process.argv[3]);
console.log(result.engine);
`,
      [src, path.join(tmp.dir, 'idle', 'idle.flac')],
    );
    expect({ status, signal }).toEqual({ status: 0, signal: null });
    expect(stdout).toMatch(/worker thread/);
  });

  it('close({ force: true }) stops the running job and removes its .part', () => {
    const src = path.join(tmp.dir, 'long.wav');
    const dest = path.join(tmp.dir, 'forced', 'long.flac');
    writeWav(src, { format: 'pcm16', channels: 2, sampleRate: 48000, frames: 48000 * 60 });
    const { status, stdout, stderr } = runNode(
      `
import { existsSync } from 'node:fs';
import { createFlacEncoder } from './dist/audio/flac-encoder.js';
const [src, dest] = process.argv.slice(2);
const encoder = createFlacEncoder();
const job = encoder.encode(src, dest).then(() => 'finished', (e) => e.code);
// Close as soon as the worker has started writing the .part file.
while (!existsSync(dest + '.part')) await new Promise((r) => setTimeout(r, 1));
await encoder.close({ force: true });
console.log(JSON.stringify({ job: await job, part: existsSync(dest + '.part'), dest: existsSync(dest) }));
`,
      [src, dest],
    );
    expect(stderr).toBe('');
    expect(status).toBe(0);
    // Encoding 60 s of stereo takes hundreds of milliseconds; the close arrives within a few.
    expect(JSON.parse(stdout)).toEqual({ job: 'ERR_FLAC_ENCODER', part: false, dest: false });
  });

  // A station encoding with libFLAC's addon never loads the fallbacks (libflacjs, its
  // worker's protocol, the `flac` program's engine): the module-trace hook lists what the
  // process resolved.
  it.skipIf(!addonBuilt)('with the addon (auto), the fallback engines are never loaded', () => {
    const src = path.join(tmp.dir, 'addon.wav');
    writeWav(src, { format: 'pcm16', channels: 1, sampleRate: 48000, frames: 48000 * 2 });
    const trace = path.join(tmp.dir, 'addon.trace');
    const { status, stdout, stderr } = runNode(
      `
import { createFlacEncoder } from './dist/audio/flac-encoder.js';
const encoder = createFlacEncoder({ engine: 'auto' });
const result = await encoder.encodeToMemory(process.argv[2]);
await encoder.close();
console.log(JSON.stringify({ engine: result.engine, totalSamples: result.totalSamples }));
`,
      [src],
      { NODE_OPTIONS: `--import=${TRACE_HOOK}`, MODULE_TRACE_FILE: trace },
    );
    expect(stderr).toBe('');
    expect(status).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ engine: expect.stringMatching(/flac-bindings, in-process/), totalSamples: 96000 });
    const loaded = readFileSync(trace, 'utf8').split('\n').map((line) => line.split(' ')[1] ?? '');
    expect(loaded.filter((url) => url.endsWith('/dist/audio/flac-engines.js'))).toHaveLength(1);
    expect(loaded.filter((url) => /\/dist\/audio\/(libflac-engines|libflac|flac-worker-protocol|flac-cli)\.js$|\/libflacjs\//.test(url))).toEqual([]);
  });

  it('checkFlacEncoder() passes with the worker', () => {
    const { status, stdout } = runNode(
      `
import { checkFlacEncoder } from './dist/audio/flac-check.js';
console.log(JSON.stringify(await checkFlacEncoder()));
`,
      [],
    );
    expect(status).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ ok: true, engine: expect.stringMatching(/worker thread/), detail: expect.stringMatching(/MD5 matches/) });
  });
});
