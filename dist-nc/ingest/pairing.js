import { existsSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { errorCode, errorMessage } from '../errors.js';
import { isFileDone, markFileDone } from '../queue/ingested-files.js';
import { openRegularFile } from '../system/regular-file.js';
import { classifyPath } from './formats.js';
import { ingestRecording } from './ingest-recording.js';
const ANALYZERPI_WAV = /^\d{4}-\d{2}-\d{2}-birdnet-.*\.wav$/i;
const AUDIO_WAIT_MS = 10 * 60_000;
export class Pairing {
    opts;
    waiting = new Map();
    current = null;
    worker = null;
    waitingSince = new Map();
    linking = new Map();
    held = new Map();
    startedAt = Date.now();
    constructor(opts) {
        this.opts = opts;
    }
    classify = (file) => {
        if (this.opts.ctx.spool.isNear(file))
            return undefined;
        const c = classifyPath(file);
        if (c.kind === 'ignored')
            return undefined;
        if (c.kind === 'audio')
            return this.takesOnSight(file) ? { kind: 'audio', takeOnSight: true } : undefined;
        if (c.kind === 'analyzerpi-json')
            return this.opts.mode !== 'results' ? c : undefined;
        return this.opts.mode !== 'analyzerpi' ? c : undefined;
    };
    isDone = (file, size, mtimeMs) => this.waiting.has(file) || this.current === file || isFileDone(this.opts.ctx.queue, file, size, mtimeMs);
    get backlog() {
        return this.waiting.size + (this.current ? 1 : 0);
    }
    onAppear = (file, what) => {
        if (what.kind !== 'audio' || this.linking.has(file))
            return;
        const spool = this.opts.ctx.spool;
        const dest = path.join(spool.incomingDir, path.basename(file));
        const task = (async () => {
            const handle = await openRegularFile(file);
            let keep = false;
            try {
                if ((!spool.nearDir || (await spool.nearHasRoom())) && (await spool.tryLink(file, dest, handle)))
                    return;
                if (this.held.size >= MAX_HELD) {
                    this.opts.ctx.log.warn(`not holding ${file}: already ${MAX_HELD} WAVs wait for their results; it is uploaded only if it is still there when its JSON comes`);
                    return;
                }
                this.held.set(file, { handle, at: Date.now() });
                keep = true;
            }
            finally {
                if (!keep)
                    await handle.close();
            }
        })()
            .catch((err) => this.opts.ctx.log.warn(`could not take ${file} into the spool: ${errorMessage(err)}`))
            .finally(() => this.linking.delete(file));
        this.linking.set(file, task);
    };
    onStable = (file, st, what) => what.kind === 'audio' ? undefined : this.scheduleIngest(file, st, what);
    async idle() {
        while (this.worker)
            await this.worker;
    }
    async close() {
        for (const [file] of this.held)
            await this.release(file);
    }
    async sweepIncoming(now = Date.now()) {
        let removed = 0;
        for (const [file, h] of [...this.held]) {
            if (now - h.at >= this.opts.jsonTimeoutMs) {
                await this.release(file);
                removed++;
            }
        }
        const spooled = [];
        for (const dir of this.opts.ctx.spool.incomingDirs) {
            for (const name of await readdir(dir).catch(() => []))
                spooled.push(path.join(dir, name));
        }
        for (const file of spooled) {
            const name = path.basename(file);
            const st = await stat(file).catch(() => null);
            if (!st || now - Math.max(st.ctimeMs, this.startedAt) < this.opts.jsonTimeoutMs)
                continue;
            if (this.isHandedOver((f) => f.endsWith(`${name}.json`)))
                continue;
            await this.opts.ctx.spool.remove(file);
            removed++;
            this.opts.ctx.log.warn(`discarded ${name}: its analyzer result never came within ${Math.round(this.opts.jsonTimeoutMs / 1000)} s`);
        }
        return removed;
    }
    isHandedOver(match) {
        if (this.current && match(this.current))
            return true;
        for (const file of this.waiting.keys())
            if (match(file))
                return true;
        return false;
    }
    async release(file) {
        const held = this.held.get(file);
        this.held.delete(file);
        await held?.handle.close().catch(() => undefined);
    }
    takesOnSight(file) {
        if (this.opts.mode === 'results' || !this.opts.ctx.policy.keepsAudio)
            return false;
        return this.opts.mode === 'analyzerpi' ? /\.wav$/i.test(file) : ANALYZERPI_WAV.test(path.basename(file));
    }
    scheduleIngest(file, st, what) {
        return new Promise((resolve) => {
            const before = this.waiting.get(file);
            this.waiting.set(file, {
                st,
                what,
                finished: () => {
                    before?.finished();
                    resolve();
                },
            });
            this.startWorker();
        });
    }
    startWorker() {
        if (this.worker)
            return;
        this.worker = this.work().finally(() => {
            this.worker = null;
            if (this.waiting.size > 0)
                this.startWorker();
        });
    }
    async work() {
        for (let next = this.waiting.entries().next(); !next.done; next = this.waiting.entries().next()) {
            const [file, w] = next.value;
            this.waiting.delete(file);
            this.current = file;
            try {
                await this.ingestFile(file, w.st, w.what);
            }
            catch (err) {
                this.opts.ctx.log.error({ file, code: errorCode(err) }, `ingest of ${file} failed, looking at it again in 60 s: ${errorMessage(err)}`);
                this.opts.recheck(file, 60_000);
            }
            finally {
                this.current = null;
                w.finished();
            }
        }
    }
    async pairedInput(file, what) {
        if (what.kind !== 'analyzerpi-json')
            return { resultPath: file, what, audioPath: findAudio(file, what.audioFileName ?? what.baseName) };
        const original = path.join(path.dirname(file), what.audioFileName);
        await this.linking.get(original);
        const spool = this.opts.ctx.spool;
        const spooled = spool.incomingDirs.map((dir) => path.join(dir, what.audioFileName)).find((f) => existsSync(f));
        if (spooled)
            return { resultPath: file, what, audioPath: original, spooledAudio: spooled };
        const held = this.held.get(original);
        const to = path.join(spool.cardIncomingDir, what.audioFileName);
        return { resultPath: file, what, audioPath: original, ...(held && { heldAudio: { handle: held.handle, to } }) };
    }
    async ingestFile(file, st, what) {
        const input = { ...(await this.pairedInput(file, what)), found: { size: st.size, mtimeMs: st.mtimeMs } };
        let outcome;
        try {
            outcome = await this.ingest(input);
            if (outcome.status === 'not-ready' && outcome.waitingFor === 'audio') {
                const since = this.waitingSince.get(file) ?? Date.now();
                this.waitingSince.set(file, since);
                if (Date.now() - since < (this.opts.audioWaitMs ?? AUDIO_WAIT_MS)) {
                    this.opts.recheck(file, 5_000);
                    return;
                }
                outcome = await this.ingest({ ...input, audioAsItIs: true });
            }
        }
        finally {
            if (input.heldAudio && this.held.get(input.audioPath)?.handle === input.heldAudio.handle)
                await this.release(input.audioPath);
        }
        if (outcome.status === 'not-ready') {
            this.opts.ctx.log.debug({ file }, outcome.reason);
            this.opts.onOutcome?.(file, outcome);
            this.opts.recheck(file, RESULT_RECHECK_MS);
            return;
        }
        this.waitingSince.delete(file);
        this.opts.onOutcome?.(file, outcome);
        if (outcome.status === 'error' && isTransient(outcome.code)) {
            this.opts.recheck(file, 60_000);
            return;
        }
        if (this.opts.ctx.dryRun)
            return;
        if (outcome.status === 'error')
            markFileDone(this.opts.ctx.queue, file, st.size, st.mtimeMs, 'error', outcome.message);
        if (outcome.status === 'queued')
            this.opts.onQueued?.();
    }
    async ingest(input) {
        try {
            return await ingestRecording(this.opts.ctx, input);
        }
        catch (err) {
            return { status: 'error', message: `${input.resultPath}: ${errorMessage(err)}`, code: err.code ?? 'ERR_INGEST' };
        }
    }
}
const MAX_HELD = 256;
const RESULT_RECHECK_MS = 30_000;
function isTransient(code) {
    return (code === 'ENOSPC' ||
        code === 'EIO' ||
        code === 'EMFILE' ||
        code === 'ENFILE' ||
        code.startsWith('ERR_QUEUE') ||
        code === 'SQLITE_BUSY' ||
        code === 'SQLITE_FULL');
}
function findAudio(resultPath, baseOrName) {
    if (!baseOrName)
        return undefined;
    const dir = path.dirname(resultPath);
    const candidates = /\.(wav|flac)$/i.test(baseOrName)
        ? [baseOrName]
        : [`${baseOrName}.wav`, `${baseOrName}.WAV`, `${baseOrName}.flac`, `${baseOrName}.FLAC`];
    for (const name of candidates) {
        const full = path.join(dir, path.basename(name.replace(/\\/g, '/')));
        if (existsSync(full))
            return full;
    }
    return undefined;
}
