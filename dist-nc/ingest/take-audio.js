import { rename, rm, stat } from 'node:fs/promises';
import { NotRegularFileError } from '../system/regular-file.js';
import { leftInSpool, spoolAudio } from './recording-audio.js';
import { DiskFullError } from './spool.js';
export async function takeAudio(ctx, input) {
    const { existing, inspected, problems } = input;
    if (existing) {
        if (input.spooledAudio)
            await rm(input.spooledAudio, { force: true });
        return { spoolPath: existing.spoolPath, audio: null, state: 'existing' };
    }
    const audio = inspected?.kind === 'wav' || inspected?.kind === 'flac' ? inspected : null;
    if (!audio && inspected?.kind === 'missing') {
        const left = await leftInSpool(ctx, input.sourceKey);
        if (left) {
            problems.remove(inspected.message);
            return { spoolPath: left.path, audio: left, state: 'spooled' };
        }
    }
    if (!audio)
        return { spoolPath: null, audio: null, state: 'none' };
    ctx.writes?.commit();
    try {
        const spoolPath = await spoolAudio(ctx, audio, Boolean(input.spooledAudio), input.sourceKey);
        if (!spoolPath)
            problems.add(`${audio.path}: not spooled, free disk space is below disk.minFreeMb; detections go without a soundscape`);
        else if (audio.recovered)
            problems.add(`${audio.recovered}; uploaded as recovered`);
        return { spoolPath, audio, state: spoolPath ? 'spooled' : 'none' };
    }
    catch (err) {
        if (err instanceof DiskFullError) {
            problems.add(`${err.message}; detections go without a soundscape`);
            return { spoolPath: null, audio, state: 'none' };
        }
        if (err instanceof NotRegularFileError) {
            problems.add(`${err.message}; detections go without a soundscape`);
            return { spoolPath: null, audio: null, state: 'none' };
        }
        if (err.code === 'ENOENT' && !(await stat(audio.path).catch(() => null))) {
            problems.add(`${audio.path}: audio deleted before it could be spooled; detections go without a soundscape`);
            return { spoolPath: null, audio: null, state: 'none' };
        }
        throw err;
    }
}
export async function giveBackAudio(spoolPath, spooledAudio) {
    if (spooledAudio)
        await rename(spoolPath, spooledAudio).catch(() => undefined);
    else
        await rm(spoolPath, { force: true });
}
