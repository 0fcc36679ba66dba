import type { ChildProcess } from 'node:child_process';
import { constants } from 'node:fs';
import { access, mkdir, open, readFile, readdir, rename, statfs, unlink } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { FlacEncoderError } from './errors.js';
import { DEFAULT_COMPRESSION_LEVEL, FLAC_BLOCK_SIZE, syncDirectory } from './flac-encode-job.js';
import type { EncodeJob, EncodeResult } from './flac-encode-job.js';
import type { EncodeEngine } from './flac-engines.js';
import { readFlacInfo, type FlacInfo } from './flac-info.js';
import { WAVE_FORMAT_PCM } from './wav-format.js';
import { readWavInfo, type WavInfo } from './wav.js';
import { pidAlive } from '../system/pid.js';
import { RAMFS_MAGIC, TMPFS_MAGIC } from '../system/disk.js';

/**
 * `node:child_process`, loaded at the first use of the program: the daemon imports this module
 * for its engine choice, and with libFLAC's addon in its process it never runs `flac`.
 */
const childProcess = () => import('node:child_process');

/** The most of the program's stderr kept for an error message (it can repeat a line per frame). */
const STDERR_KEEP = 2_048;

/** The `flac` program's version line (`flac 1.4.3`), or undefined when it is not on PATH. */
export async function findFlacProgram(program = 'flac'): Promise<string | undefined> {
  try {
    const { stdout } = await promisify((await childProcess()).execFile)(program, ['--version']);
    return stdout.trim() || program;
  } catch {
    return undefined;
  }
}

/**
 * Run `flac` and wait for it. The program reads the WAV and writes the FLAC itself, so
 * no audio passes through this process; only the start of its stderr is kept.
 */
async function runFlac(program: string, args: string[], onStart: (child: ChildProcess) => void, closed: () => boolean): Promise<void> {
  const { spawn } = await childProcess();
  // A close while the module loaded found no child to stop: none is started.
  if (closed()) throw new FlacEncoderError(`the FLAC encoder was closed before flac started on ${args[args.length - 1]}`);
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
 * engines: validated input, the STREAMINFO checked (sample count) before the FLAC is
 * handed over; a file is written `.part`, fsynced, then renamed. close(true) kills a
 * running program.
 *
 * Into memory (a job without `dest`): the program cannot write its final STREAMINFO
 * (MD5, frame sizes) into a pipe, which it cannot seek back in, so it writes a file in
 * `scratchDir`, a RAM file system (tmpfs, e.g. /dev/shm), read back and removed at once:
 * nothing reaches a disk. Without a scratch folder, memory jobs go to `fallback`.
 */
export function flacCliEngine(version: string, fallback: EncodeEngine, program = 'flac', scratchDir?: string): EncodeEngine {
  let running: ChildProcess | undefined;
  let closing = false;
  let scratchCount = 0;

  /** Runs the program into `target`; the FLAC's STREAMINFO checked against the WAV. `undefined`: refused, use the fallback. */
  const encodeTo = async (job: EncodeJob, info: WavInfo, target: string): Promise<FlacInfo | undefined> => {
    const level = job.compressionLevel ?? DEFAULT_COMPRESSION_LEVEL;
    try {
      await runFlac(
        program,
        ['--silent', '--force', '--no-padding', `-${level}`, `--blocksize=${FLAC_BLOCK_SIZE}`, '-o', target, job.src],
        (child) => {
          running = child;
        },
        () => closing,
      );
    } catch (err) {
      // The program refuses some valid WAVs that the RIFF reader takes (a data chunk
      // before fmt, odd chunks between them): those go to libflacjs, which reads them
      // through that reader. (No padding block: 8 KB of nothing in every upload.) Only a refusal (an exit status with its ERROR line) falls
      // back; a program that cannot be run, or a stop (close), ends the job.
      const refused = /\bERROR\b/.test((err as { stderr?: string }).stderr ?? '');
      if (closing || !refused) throw err;
      return undefined;
    } finally {
      running = undefined;
    }
    const flac = await readFlacInfo(target);
    const frames = info.dataBytes / info.blockAlign;
    if (flac.totalSamples !== frames || flac.sampleRate !== info.sampleRate || flac.channels !== info.channels) {
      throw new FlacEncoderError(
        `flac wrote ${flac.totalSamples} samples, ${flac.channels} channel(s) at ${flac.sampleRate} Hz for ${job.src}; expected ${frames}, ${info.channels} at ${info.sampleRate} Hz`,
      );
    }
    return flac;
  };

  const result = (flac: FlacInfo, engine: string, data?: Uint8Array): EncodeResult => ({
    sampleRate: flac.sampleRate,
    channels: flac.channels,
    bitsPerSample: flac.bitsPerSample,
    totalSamples: flac.totalSamples,
    durationSec: flac.durationSec,
    bytes: flac.bytes,
    md5: flac.md5,
    engine,
    ...(data ? { data } : {}),
  });

  const failed = (err: unknown, job: EncodeJob): Error => {
    if (err instanceof FlacEncoderError) return err;
    const stderr = (err as { stderr?: string }).stderr?.trim();
    return new FlacEncoderError(`flac failed on ${job.src}: ${stderr || (err as Error).message}`, { cause: err });
  };

  return {
    name: `${version} (flac program)`,
    async run(job: EncodeJob): Promise<EncodeResult> {
      const info = await readWavInfo(job.src); // AudioFileError for bad input, as with libflacjs
      if (!info.complete || info.formatTag !== WAVE_FORMAT_PCM || info.bitsPerSample > 24) return fallback.run(job);
      if (job.dest === undefined) {
        if (scratchDir === undefined) return fallback.run(job);
        const scratch = path.join(scratchDir, `${SCRATCH_PREFIX}${process.pid}-${++scratchCount}.flac`);
        try {
          const flac = await encodeTo(job, info, scratch);
          if (!flac) return await fallback.run(job);
          const file = await readFile(scratch);
          // Its own ArrayBuffer (readFile's is), so it can be transferred like libflacjs' output.
          return result(flac, this.name, new Uint8Array(file.buffer, file.byteOffset, file.byteLength));
        } catch (err) {
          throw failed(err, job);
        } finally {
          await unlink(scratch).catch(() => undefined);
        }
      }
      const part = `${job.dest}.part`;
      await mkdir(path.dirname(job.dest), { recursive: true });
      try {
        const flac = await encodeTo(job, info, part);
        if (!flac) {
          await unlink(part).catch(() => undefined);
          return await fallback.run(job);
        }
        const fh = await open(part, 'r+');
        try {
          await fh.sync();
        } finally {
          await fh.close();
        }
        await rename(part, job.dest);
        await syncDirectory(path.dirname(job.dest));
        return result(flac, this.name);
      } catch (err) {
        await unlink(part).catch(() => undefined);
        throw failed(err, job);
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

/** Names of the `flac` program's files in the scratch folder: the prefix, the agent's pid, a count. */
export const SCRATCH_PREFIX = 'station-agent-flac-';

/**
 * A RAM folder for the `flac` program's output (`/dev/shm` where it is a tmpfs), or
 * undefined. Files a killed agent left there (its pid no longer runs) are removed.
 */
export async function findScratchDir(dir = '/dev/shm'): Promise<string | undefined> {
  try {
    const fs = await statfs(dir);
    if (fs.type !== TMPFS_MAGIC && fs.type !== RAMFS_MAGIC) return undefined;
    await access(dir, constants.W_OK);
    for (const name of await readdir(dir)) {
      const pid = Number(name.slice(SCRATCH_PREFIX.length).split('-')[0]);
      if (!name.startsWith(SCRATCH_PREFIX) || !Number.isInteger(pid) || pidAlive(pid)) continue;
      await unlink(path.join(dir, name)).catch(() => undefined);
    }
    return dir;
  } catch {
    return undefined;
  }
}


