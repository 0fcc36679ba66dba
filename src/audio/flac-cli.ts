import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdir, open, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { FlacEncoderError } from './errors.js';
import { DEFAULT_COMPRESSION_LEVEL, syncDirectory } from './flac-encode-job.js';
import type { EncodeJob, EncodeResult } from './flac-encode-job.js';
import type { EncodeEngine } from './flac-engines.js';
import { readFlacInfo } from './flac-info.js';
import { WAVE_FORMAT_PCM } from './wav-format.js';
import { readWavInfo } from './wav.js';

const run = promisify(execFile);

/** The most of the program's stderr kept for an error message (it can repeat a line per frame). */
const STDERR_KEEP = 2_048;

/** The `flac` program's version line (`flac 1.4.3`), or undefined when it is not on PATH. */
export async function findFlacProgram(program = 'flac'): Promise<string | undefined> {
  try {
    const { stdout } = await run(program, ['--version']);
    return stdout.trim() || program;
  } catch {
    return undefined;
  }
}

/**
 * Run `flac` and wait for it. The program reads the WAV and writes the FLAC itself, so
 * no audio passes through this process; only the start of its stderr is kept.
 */
function runFlac(program: string, args: string[], onStart: (child: ChildProcess) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    onStart(child);
    let stderr = '';
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      if (stderr.length < STDERR_KEEP) stderr += chunk.slice(0, STDERR_KEEP - stderr.length);
    });
    child.once('error', reject);
    child.once('close', (code, signal) => {
      if (code === 0) resolve();
      else reject(Object.assign(new Error(signal ? `killed by ${signal}` : `exit code ${code}`), { stderr }));
    });
  });
}

/**
 * The reference `flac` encoder (native libFLAC), for stations that have it installed:
 * about a tenth of libflacjs' CPU on a Pi. It handles what it handles best (complete
 * 8/16/24-bit PCM WAVs); float, 32-bit and unfinished files go to `fallback`
 * (libflacjs), which converts them as pcm.ts documents. Same contract as the libflacjs
 * engines: validated input, `.part` then fsync then rename, and the STREAMINFO checked
 * (sample count) before the rename. close(true) kills a running program.
 */
export function flacCliEngine(version: string, fallback: EncodeEngine, program = 'flac'): EncodeEngine {
  let running: ChildProcess | undefined;
  let closing = false;
  return {
    name: `${version} (flac program)`,
    async run(job: EncodeJob): Promise<EncodeResult> {
      const info = await readWavInfo(job.src); // AudioFileError for bad input, as with libflacjs
      if (!info.complete || info.formatTag !== WAVE_FORMAT_PCM || info.bitsPerSample > 24) return fallback.run(job);
      const part = `${job.dest}.part`;
      await mkdir(path.dirname(job.dest), { recursive: true });
      const level = job.compressionLevel ?? DEFAULT_COMPRESSION_LEVEL;
      try {
        try {
          await runFlac(program, ['--silent', '--force', `-${level}`, '-o', part, job.src], (child) => {
            running = child;
          });
        } catch (err) {
          // The program refuses some valid WAVs that the RIFF reader takes (a data chunk
          // before fmt, odd chunks between them): those go to libflacjs, which reads them
          // through that reader. A stop (close) ends the job instead.
          // Only a refusal (an exit status with its ERROR line) falls back; a program that
          // cannot be run, or a stop (close), ends the job as before.
          const refused = /\bERROR\b/.test((err as { stderr?: string }).stderr ?? '');
          if (closing || !refused) throw err;
          running = undefined;
          await unlink(part).catch(() => undefined);
          return await fallback.run(job);
        }
        const fh = await open(part, 'r+');
        try {
          await fh.sync();
        } finally {
          await fh.close();
        }
        const flac = await readFlacInfo(part);
        const frames = info.dataBytes / info.blockAlign;
        if (flac.totalSamples !== frames || flac.sampleRate !== info.sampleRate || flac.channels !== info.channels) {
          throw new FlacEncoderError(
            `flac wrote ${flac.totalSamples} samples, ${flac.channels} channel(s) at ${flac.sampleRate} Hz for ${job.src}; expected ${frames}, ${info.channels} at ${info.sampleRate} Hz`,
          );
        }
        await rename(part, job.dest);
        await syncDirectory(path.dirname(job.dest));
        return {
          sampleRate: flac.sampleRate,
          channels: flac.channels,
          bitsPerSample: flac.bitsPerSample,
          totalSamples: flac.totalSamples,
          durationSec: flac.durationSec,
          bytes: flac.bytes,
          md5: flac.md5,
          engine: this.name,
        };
      } catch (err) {
        await unlink(part).catch(() => undefined);
        if (err instanceof FlacEncoderError) throw err;
        const stderr = (err as { stderr?: string }).stderr?.trim();
        throw new FlacEncoderError(`flac failed on ${job.src}: ${stderr || (err as Error).message}`, { cause: err });
      } finally {
        running = undefined;
      }
    },
    async close(force) {
      closing = true;
      // The job's own catch removes the `.part` once the killed program has exited.
      if (force) running?.kill('SIGTERM');
      await fallback.close(force);
    },
  };
}
