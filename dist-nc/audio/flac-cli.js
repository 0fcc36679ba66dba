import { execFile, spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { access, mkdir, open, readFile, readdir, rename, statfs, unlink } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { FlacEncoderError } from './errors.js';
import { DEFAULT_COMPRESSION_LEVEL, syncDirectory } from './flac-encode-job.js';
import { readFlacInfo } from './flac-info.js';
import { WAVE_FORMAT_PCM } from './wav-format.js';
import { readWavInfo } from './wav.js';
import { pidAlive } from '../system/pid.js';
const run = promisify(execFile);
const STDERR_KEEP = 2_048;
export async function findFlacProgram(program = 'flac') {
    try {
        const { stdout } = await run(program, ['--version']);
        return stdout.trim() || program;
    }
    catch {
        return undefined;
    }
}
function runFlac(program, args, onStart) {
    return new Promise((resolve, reject) => {
        const child = spawn(program, args, { stdio: ['ignore', 'ignore', 'pipe'] });
        onStart(child);
        let stderr = '';
        child.stderr?.setEncoding('utf8').on('data', (chunk) => {
            if (stderr.length < STDERR_KEEP)
                stderr += chunk.slice(0, STDERR_KEEP - stderr.length);
        });
        child.once('error', reject);
        child.once('close', (code, signal) => {
            if (code === 0)
                resolve();
            else
                reject(Object.assign(new Error(signal ? `killed by ${signal}` : `exit code ${code}`), { stderr }));
        });
    });
}
export function flacCliEngine(version, fallback, program = 'flac', scratchDir) {
    let running;
    let closing = false;
    let scratchCount = 0;
    const encodeTo = async (job, info, target) => {
        const level = job.compressionLevel ?? DEFAULT_COMPRESSION_LEVEL;
        try {
            await runFlac(program, ['--silent', '--force', '--no-padding', `-${level}`, '-o', target, job.src], (child) => {
                running = child;
            });
        }
        catch (err) {
            const refused = /\bERROR\b/.test(err.stderr ?? '');
            if (closing || !refused)
                throw err;
            return undefined;
        }
        finally {
            running = undefined;
        }
        const flac = await readFlacInfo(target);
        const frames = info.dataBytes / info.blockAlign;
        if (flac.totalSamples !== frames || flac.sampleRate !== info.sampleRate || flac.channels !== info.channels) {
            throw new FlacEncoderError(`flac wrote ${flac.totalSamples} samples, ${flac.channels} channel(s) at ${flac.sampleRate} Hz for ${job.src}; expected ${frames}, ${info.channels} at ${info.sampleRate} Hz`);
        }
        return flac;
    };
    const result = (flac, engine, data) => ({
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
    const failed = (err, job) => {
        if (err instanceof FlacEncoderError)
            return err;
        const stderr = err.stderr?.trim();
        return new FlacEncoderError(`flac failed on ${job.src}: ${stderr || err.message}`, { cause: err });
    };
    return {
        name: `${version} (flac program)`,
        async run(job) {
            const info = await readWavInfo(job.src);
            if (!info.complete || info.formatTag !== WAVE_FORMAT_PCM || info.bitsPerSample > 24)
                return fallback.run(job);
            if (job.dest === undefined) {
                if (scratchDir === undefined)
                    return fallback.run(job);
                const scratch = path.join(scratchDir, `${SCRATCH_PREFIX}${process.pid}-${++scratchCount}.flac`);
                try {
                    const flac = await encodeTo(job, info, scratch);
                    if (!flac)
                        return await fallback.run(job);
                    const file = await readFile(scratch);
                    return result(flac, this.name, new Uint8Array(file.buffer, file.byteOffset, file.byteLength));
                }
                catch (err) {
                    throw failed(err, job);
                }
                finally {
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
                }
                finally {
                    await fh.close();
                }
                await rename(part, job.dest);
                await syncDirectory(path.dirname(job.dest));
                return result(flac, this.name);
            }
            catch (err) {
                await unlink(part).catch(() => undefined);
                throw failed(err, job);
            }
        },
        async close(force) {
            closing = true;
            if (force)
                running?.kill('SIGTERM');
            await fallback.close(force);
        },
    };
}
export const SCRATCH_PREFIX = 'station-agent-flac-';
export async function findScratchDir(dir = '/dev/shm') {
    try {
        const fs = await statfs(dir);
        if (fs.type !== TMPFS_MAGIC && fs.type !== RAMFS_MAGIC)
            return undefined;
        await access(dir, constants.W_OK);
        for (const name of await readdir(dir)) {
            const pid = Number(name.slice(SCRATCH_PREFIX.length).split('-')[0]);
            if (!name.startsWith(SCRATCH_PREFIX) || !Number.isInteger(pid) || pidAlive(pid))
                continue;
            await unlink(path.join(dir, name)).catch(() => undefined);
        }
        return dir;
    }
    catch {
        return undefined;
    }
}
const TMPFS_MAGIC = 0x01021994;
const RAMFS_MAGIC = 0x858458f6;
