import { lstatSync, readlinkSync, realpathSync, watch } from 'node:fs';
import path from 'node:path';
const MAX_LINKS = 8;
export function linkChain(file) {
    const chain = [file];
    let current = file;
    for (let i = 0; i < MAX_LINKS; i++) {
        try {
            if (!lstatSync(current).isSymbolicLink())
                break;
            current = path.resolve(path.dirname(current), readlinkSync(current));
        }
        catch {
            break;
        }
        chain.push(current);
    }
    try {
        const real = realpathSync(file);
        if (!chain.includes(real))
            chain.push(real);
    }
    catch {
    }
    return chain;
}
export class ConfigFilesWatcher {
    options;
    watchers = new Map();
    timer;
    changedFiles = new Set();
    files = [];
    closed = false;
    constructor(options) {
        this.options = options;
    }
    watch(files) {
        if (this.closed)
            return;
        this.files = files;
        const wanted = new Map();
        for (const file of files) {
            if (!file)
                continue;
            const full = path.resolve(file);
            for (const step of linkChain(full)) {
                const dir = path.dirname(step);
                const names = wanted.get(dir) ?? new Map();
                const stands = names.get(path.basename(step)) ?? new Set();
                stands.add(full);
                names.set(path.basename(step), stands);
                wanted.set(dir, names);
            }
        }
        for (const [dir, entry] of this.watchers) {
            if (wanted.has(dir))
                continue;
            entry.watcher.close();
            this.watchers.delete(dir);
        }
        for (const [dir, names] of wanted) {
            const existing = this.watchers.get(dir);
            if (existing) {
                existing.names = names;
                continue;
            }
            const first = () => [...[...names.values()][0]][0];
            try {
                const entry = { names, watcher: undefined };
                entry.watcher = watch(dir, { persistent: false }, (_event, name) => {
                    if (name === null) {
                        for (const stands of entry.names.values())
                            for (const file of stands)
                                this.changed(file);
                    }
                    else {
                        for (const file of entry.names.get(path.basename(name)) ?? [])
                            this.changed(file);
                    }
                });
                entry.watcher.on('error', (err) => this.options.onError(first(), err));
                this.watchers.set(dir, entry);
            }
            catch (err) {
                this.options.onError(first(), err);
            }
        }
    }
    close() {
        this.closed = true;
        clearTimeout(this.timer);
        for (const { watcher } of this.watchers.values())
            watcher.close();
        this.watchers.clear();
    }
    changed(file) {
        this.changedFiles.add(file);
        clearTimeout(this.timer);
        this.timer = setTimeout(() => {
            const files = [...this.changedFiles];
            this.changedFiles.clear();
            this.watch(this.files);
            this.options.onChange(files);
        }, this.options.debounceMs ?? 500);
    }
}
