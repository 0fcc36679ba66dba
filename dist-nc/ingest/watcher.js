import { lstatSync, statSync, watch } from 'node:fs';
import { opendir } from 'node:fs/promises';
import path from 'node:path';
import { notTakenReason } from '../system/regular-file.js';
const MAX_PENDING = 1_000;
const MAX_DEPTH = 8;
const FULL_LOOK_MS = 3_600_000;
const MAX_REPORTED_SKIPS = 1_000;
export class InputWatcher {
    opts;
    folders = new Map();
    rescanTimer = null;
    pending = new Map();
    handedOver = 0;
    undecodable = new Set();
    skipped = new Set();
    rescanning = null;
    rescanAgain = false;
    closed = false;
    ready = false;
    overflowed = false;
    saidWatchLimit = false;
    overflowEpoch = 0;
    constructor(opts) {
        this.opts = opts;
    }
    async start() {
        await this.walk(this.opts.dir, 0);
        this.ready = true;
        if (this.opts.rescanIntervalMs > 0) {
            this.rescanTimer = setInterval(() => void this.rescan(), this.opts.rescanIntervalMs);
            this.rescanTimer.unref();
        }
    }
    get pendingCount() {
        return this.pending.size;
    }
    get heldCount() {
        return this.pending.size + this.handedOver;
    }
    get isReady() {
        return this.ready && !this.closed;
    }
    recheck(file, delayMs = this.opts.stableMs) {
        if (this.closed)
            return;
        const prev = this.pending.get(file);
        if (prev)
            clearTimeout(prev.timer);
        const what = prev?.what ?? this.opts.classify(file);
        if (what === undefined)
            return;
        const timer = setTimeout(() => this.check(file), delayMs);
        this.pending.set(file, { size: prev?.size ?? -1, mtimeMs: prev?.mtimeMs ?? -1, timer, what, changed: false });
    }
    rescan() {
        if (this.closed)
            return Promise.resolve();
        if (this.rescanning)
            return this.rescanning;
        this.overflowed = false;
        this.rescanning = this.walk(this.opts.dir, 0, true)
            .catch((err) => this.opts.onError?.(err instanceof Error ? err : new Error(String(err))))
            .finally(() => {
            this.rescanning = null;
            if (this.rescanAgain) {
                this.rescanAgain = false;
                void this.rescan();
            }
        });
        return this.rescanning;
    }
    fetchOverflow() {
        if (this.rescanning)
            this.rescanAgain = true;
        else
            void this.rescan();
    }
    async close() {
        this.closed = true;
        if (this.rescanTimer)
            clearInterval(this.rescanTimer);
        for (const p of this.pending.values())
            clearTimeout(p.timer);
        this.pending.clear();
        for (const f of this.folders.values())
            f.watch.close();
        this.folders.clear();
        await this.rescanning;
    }
    watchFolder(dir, depth) {
        if (this.closed)
            return null;
        let st;
        try {
            st = statSync(dir);
        }
        catch {
            return null;
        }
        const known = this.folders.get(dir);
        if (known?.ino === st.ino)
            return { st, folder: known };
        if (known)
            this.unwatchFolder(dir);
        try {
            const w = watch(dir, { persistent: true }, (event, name) => this.folderEvent(dir, depth, event, name));
            w.on('error', () => this.unwatchFolder(dir));
            const folder = { watch: w, ino: st.ino, looked: null };
            this.folders.set(dir, folder);
            return { st, folder };
        }
        catch (err) {
            const code = err.code;
            if (code === 'ENOSPC' && !this.saidWatchLimit) {
                this.saidWatchLimit = true;
                this.opts.onError?.(new Error(`cannot watch ${dir}: the system's limit of inotify watches is reached (fs.inotify.max_user_watches); new files there are found by the periodic rescan only`));
            }
            return { st, folder: undefined };
        }
    }
    unwatchFolder(dir) {
        const below = dir + path.sep;
        for (const [folder, f] of this.folders) {
            if (folder === dir || folder.startsWith(below)) {
                f.watch.close();
                this.folders.delete(folder);
            }
        }
    }
    folderEvent(dir, depth, event, name) {
        if (this.closed)
            return;
        if (name === null) {
            void this.walk(dir, depth).catch((err) => this.opts.onError?.(err instanceof Error ? err : new Error(String(err))));
            return;
        }
        const entry = String(name);
        if (isHiddenName(entry))
            return;
        const full = path.join(dir, entry);
        const prev = this.pending.get(full);
        if (prev) {
            clearTimeout(prev.timer);
            prev.changed = true;
            prev.timer = setTimeout(() => this.check(full), this.opts.stableMs);
            return;
        }
        const what = this.opts.classify(full);
        if (what === undefined && event === 'change')
            return;
        let st;
        try {
            st = lstatSync(full);
        }
        catch {
            if (this.folders.has(full))
                this.unwatchFolder(full);
            if (what !== undefined)
                this.reportUndecodableName(full);
            return;
        }
        if (st.isDirectory()) {
            void this.walk(full, depth + 1).catch((err) => this.opts.onError?.(err instanceof Error ? err : new Error(String(err))));
            return;
        }
        if (this.skipSpecial(full, st) || what === undefined)
            return;
        this.seen(full, st, what);
    }
    skipSpecial(file, st) {
        const why = notTakenReason(st);
        if (why === null)
            return false;
        if ((st.isSymbolicLink() || this.opts.classify(file) !== undefined) && !this.skipped.has(file) && this.skipped.size < MAX_REPORTED_SKIPS) {
            this.skipped.add(file);
            this.opts.onSkip?.(file, why);
        }
        return true;
    }
    seen(file, st, what) {
        if (this.closed)
            return;
        const prev = this.pending.get(file);
        if (!prev) {
            if (this.opts.isDone(file, st.size, st.mtimeMs))
                return;
            if (this.heldCount >= (this.opts.maxPending ?? MAX_PENDING)) {
                this.overflowed = true;
                this.overflowEpoch++;
                return;
            }
            this.opts.onAppear?.(file, what);
        }
        else {
            clearTimeout(prev.timer);
        }
        const timer = setTimeout(() => this.check(file), this.opts.stableMs);
        this.pending.set(file, { size: st.size, mtimeMs: st.mtimeMs, timer, what: prev?.what ?? what, changed: false });
    }
    check(file) {
        const prev = this.pending.get(file);
        if (!prev || this.closed)
            return;
        let st;
        try {
            st = lstatSync(file);
        }
        catch {
            this.reportUndecodableName(file);
            this.vanished(file);
            return;
        }
        if (this.skipSpecial(file, st)) {
            clearTimeout(prev.timer);
            this.pending.delete(file);
            return;
        }
        if (!prev.changed && (st.size !== prev.size || st.mtimeMs !== prev.mtimeMs)) {
            const timer = setTimeout(() => this.check(file), this.opts.stableMs);
            this.pending.set(file, { size: st.size, mtimeMs: st.mtimeMs, timer, what: prev.what, changed: false });
            return;
        }
        this.pending.delete(file);
        const handled = this.opts.onStable(file, st, prev.what);
        if (handled) {
            this.handedOver++;
            void handled
                .catch(() => undefined)
                .finally(() => {
                this.handedOver--;
                this.roomFreed();
            });
        }
        this.roomFreed();
    }
    roomFreed() {
        if (this.overflowed && !this.closed && this.heldCount <= (this.opts.maxPending ?? MAX_PENDING) / 2)
            this.fetchOverflow();
    }
    reportUndecodableName(file) {
        if (!file.includes('\uFFFD') || this.undecodable.has(file))
            return;
        this.undecodable.add(file);
        this.opts.onError?.(new Error(`cannot read ${file}: its name is not valid UTF-8 (shown with \uFFFD); rename the file to take it in`));
    }
    vanished(file) {
        const prev = this.pending.get(file);
        if (prev) {
            clearTimeout(prev.timer);
            this.pending.delete(file);
        }
        this.opts.onVanish?.(file);
    }
    async walk(dir, depth, rescan = false) {
        if (this.closed || depth > (this.opts.depth ?? MAX_DEPTH))
            return;
        const watched = this.watchFolder(dir, depth);
        if (!watched)
            return;
        const { st, folder } = watched;
        const looked = folder?.looked;
        const now = Date.now();
        if (rescan &&
            looked &&
            looked.mtimeMs === st.mtimeMs &&
            looked.ctimeMs === st.ctimeMs &&
            looked.epoch === this.overflowEpoch &&
            now - looked.at < FULL_LOOK_MS) {
            for (const name of looked.subfolders)
                await this.walk(path.join(dir, name), depth + 1, true);
            return;
        }
        const epoch = this.overflowEpoch;
        const subfolders = [];
        let handle;
        try {
            handle = await opendir(dir);
        }
        catch {
            return;
        }
        let what;
        for await (const entry of handle) {
            if (this.closed)
                return;
            if (isHiddenName(entry.name))
                continue;
            const full = path.join(dir, entry.name);
            if (entry.isDirectory()) {
                subfolders.push(entry.name);
                await this.walk(full, depth + 1, rescan);
            }
            else if (this.pending.has(full)) {
                continue;
            }
            else if ((what = this.opts.classify(full)) !== undefined) {
                let fst;
                try {
                    fst = lstatSync(full);
                }
                catch {
                    this.reportUndecodableName(full);
                    continue;
                }
                if (!this.skipSpecial(full, fst))
                    this.seen(full, fst, what);
            }
            else if (entry.isSymbolicLink()) {
                let fst;
                try {
                    fst = lstatSync(full);
                }
                catch {
                    continue;
                }
                this.skipSpecial(full, fst);
            }
        }
        if (folder && this.folders.get(dir) === folder)
            folder.looked = { mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, at: now, epoch, subfolders };
    }
}
function isHiddenName(name) {
    return name.startsWith('.');
}
