import { mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { errorMessage } from '../errors.js';
import { clearSpoolPath, getItem, spoolFilesToDelete, spoolUsage } from '../queue/index.js';
import { retireAudiolessRecordings } from '../queue/retire-audioless.js';
import { withholdQueuedAudio } from '../queue/withhold-audio.js';
export class RetentionSweeper {
    queue;
    config;
    log;
    now;
    firstStepOf;
    running = null;
    firstStep;
    constructor(queue, config, log, now = Date.now, firstStepOf = () => ({ run: () => { } })) {
        this.queue = queue;
        this.config = config;
        this.log = log;
        this.now = now;
        this.firstStepOf = firstStepOf;
        this.firstStep = firstStepOf(config);
    }
    reconfigure(config) {
        this.config = config;
        this.firstStep = this.firstStepOf(config);
    }
    spoolBytes() {
        return spoolUsage(this.queue).bytes;
    }
    sweep() {
        this.running ??= this.pass().finally(() => {
            this.running = null;
        });
        return this.running;
    }
    async pass() {
        const retentionMs = this.config.retention.keepUploadedDays * 86_400_000;
        const now = this.now();
        try {
            if (this.config.privacy.audio === 'never')
                await this.withholdAudio();
            const retired = retireAudiolessRecordings(this.queue, now - this.config.upload.noSoundscapeAfterSec * 1000, now);
            if (retired > 0)
                this.log.warn({ recordings: retired }, 'recordings without audio retired: their detections went without a soundscape');
            this.firstStep.run(now);
            for (;;) {
                const files = spoolFilesToDelete(this.queue, { retentionMs, limit: 100, now });
                if (files.length === 0)
                    return;
                for (const f of files) {
                    await rm(f.spoolPath, { force: true });
                    if (f.spoolPath.endsWith('.flac'))
                        await rm(`${f.spoolPath.slice(0, -'.flac'.length)}.wav`, { force: true });
                    if (f.spoolPath.endsWith('.wav')) {
                        const base = f.spoolPath.slice(0, -'.wav'.length);
                        await Promise.all([rm(`${base}.flac`, { force: true }), rm(`${base}.flac.part`, { force: true })]);
                    }
                    await this.afterUpload(f.recordingId);
                    clearSpoolPath(this.queue, f.recordingId);
                }
                if (files.length < 100)
                    return;
            }
        }
        catch (err) {
            this.log.warn(`retention sweep: ${errorMessage(err)}`);
        }
    }
    async withholdAudio() {
        const files = withholdQueuedAudio(this.queue, this.now());
        for (const f of files) {
            await rm(f.spoolPath, { force: true });
            if (f.spoolPath.endsWith('.flac'))
                await rm(`${f.spoolPath.slice(0, -'.flac'.length)}.wav`, { force: true });
            clearSpoolPath(this.queue, f.recordingId);
        }
        if (files.length > 0) {
            this.log.info({ recordings: files.length, policy: 'privacy' }, 'privacy.audio is never: soundscapes queued before are not uploaded, their audio is deleted');
        }
    }
    async afterUpload(recordingId) {
        const action = this.config.input.afterUpload;
        if (action === 'keep')
            return;
        const item = getItem(this.queue, 'recording', recordingId);
        if (!item || item.state !== 'uploaded')
            return;
        const source = item.sourcePath;
        try {
            if (action === 'delete') {
                await rm(source, { force: true });
            }
            else if (action === 'move' && this.config.input.moveTo) {
                const dest = path.join(this.config.input.moveTo, path.relative(this.config.input.dir, source));
                await mkdir(path.dirname(dest), { recursive: true });
                await rename(source, dest);
            }
        }
        catch (err) {
            if (err.code !== 'ENOENT') {
                this.log.warn({ item: recordingId }, `input.afterUpload ${action} of ${source} failed: ${errorMessage(err)}`);
            }
        }
    }
}
