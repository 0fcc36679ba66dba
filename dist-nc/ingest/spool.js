import { linkSync, lstatSync, unlinkSync } from 'node:fs';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { StationAgentError } from '../errors.js';
import { diskFree, diskFreeSync } from '../system/disk.js';
export class DiskFullError extends StationAgentError {
    code = 'ERR_DISK_FULL';
}
export const NEAR_SPOOL_NAME = '.station-agent-spool';
export class Spool {
    dir;
    nearDir = null;
    wantedNearDir;
    constructor(dataDir, keepNear = null) {
        this.dir = path.join(dataDir, 'spool');
        this.wantedNearDir = keepNear ? path.join(keepNear, NEAR_SPOOL_NAME) : null;
    }
    get incomingDir() {
        return path.join(this.nearDir ?? this.dir, 'incoming');
    }
    get cardIncomingDir() {
        return path.join(this.dir, 'incoming');
    }
    get incomingDirs() {
        return this.nearDir ? [this.incomingDir, this.cardIncomingDir] : [this.cardIncomingDir];
    }
    async init() {
        await mkdir(path.join(this.dir, 'incoming'), { recursive: true, mode: 0o700 });
        if (!this.wantedNearDir)
            return null;
        const input = path.dirname(this.wantedNearDir);
        try {
            const [a, b] = await Promise.all([stat(input), stat(this.dir)]);
            if (a.dev === b.dev)
                return `input.ramDiskAudio keep: ${input} is on the file system of dataDir; the spool hard-links its audio, nothing is copied`;
            await mkdir(path.join(this.wantedNearDir, 'incoming'), { recursive: true, mode: 0o700 });
            this.nearDir = this.wantedNearDir;
            return null;
        }
        catch (err) {
            return `input.ramDiskAudio keep: cannot use ${this.wantedNearDir} (${err.message}); audio is copied into ${this.dir}`;
        }
    }
    pathFor(name, near) {
        return path.join(near && this.isNear(near) ? this.nearDir : this.dir, name);
    }
    isNear(file) {
        return this.nearDir !== null && file.startsWith(this.nearDir + path.sep);
    }
    async nearHasRoom() {
        if (!this.nearDir)
            return false;
        const space = await diskFree(this.nearDir).catch(() => null);
        return space !== null && space.freeBytes * 2 >= space.totalBytes;
    }
    async take(source, name, handle) {
        const dest = this.pathFor(name);
        if (await this.tryLink(source, dest, handle))
            return { how: 'link', path: dest };
        if (await this.nearHasRoom()) {
            const near = path.join(this.nearDir, name);
            if (await this.tryLink(source, near, handle))
                return { how: 'link', path: near };
        }
        await this.copyFromHandle(handle, dest, source);
        return { how: 'copy', path: dest };
    }
    async tryLink(source, dest, handle) {
        try {
            linkOver(source, dest);
        }
        catch (err) {
            const code = err.code;
            if (code === 'EXDEV' || code === 'EPERM' || code === 'EACCES' || code === 'ENOTSUP')
                return false;
            if (code === 'ENOENT' && (await handle.stat()).nlink === 0)
                return false;
            throw this.wrap(err, source);
        }
        const opened = await handle.stat();
        const linked = lstatSync(dest);
        if (opened.ino === linked.ino && opened.dev === linked.dev)
            return true;
        removeName(dest);
        return false;
    }
    async copyFromHandle(handle, dest, what) {
        const part = `${dest}.part`;
        try {
            const out = await open(part, 'w', 0o600);
            try {
                const buf = Buffer.allocUnsafe(64 * 1024);
                for (let pos = 0;;) {
                    const { bytesRead } = await handle.read(buf, 0, buf.length, pos);
                    if (bytesRead === 0)
                        break;
                    await out.write(buf, 0, bytesRead);
                    pos += bytesRead;
                }
                await out.sync();
            }
            finally {
                await out.close();
            }
            await rename(part, dest);
        }
        catch (err) {
            await rm(part, { force: true });
            throw this.wrap(err, what);
        }
    }
    async remove(file) {
        await rm(file, { force: true });
    }
    freeBytes() {
        return diskFreeSync(this.dir).freeBytes;
    }
    wrap(err, source) {
        const code = err.code;
        if (code === 'ENOSPC' || code === 'EDQUOT') {
            return new DiskFullError(`no space left in the spool ${this.dir} for ${source}`, { cause: err });
        }
        return err;
    }
}
function linkOver(source, dest) {
    try {
        linkSync(source, dest);
    }
    catch (err) {
        if (err.code !== 'EEXIST')
            throw err;
        removeName(dest);
        linkSync(source, dest);
    }
}
function removeName(file) {
    try {
        unlinkSync(file);
    }
    catch (err) {
        if (err.code !== 'ENOENT')
            throw err;
    }
}
