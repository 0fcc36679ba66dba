import { closeSync, constants, fstatSync, lstatSync, openSync, readSync } from 'node:fs';
import { lstat, open, stat } from 'node:fs/promises';
import { StationAgentError } from '../errors.js';
export class NotRegularFileError extends StationAgentError {
    file;
    kind;
    code = 'ERR_NOT_REGULAR_FILE';
    constructor(file, kind) {
        super(`${file}: not a regular file (${kind}), skipped${kind === 'a symbolic link' ? ': the agent does not follow symbolic links' : ''}`);
        this.file = file;
        this.kind = kind;
    }
}
export function fileKind(st) {
    if (st.isFile())
        return 'a regular file';
    if (st.isDirectory())
        return 'a folder';
    if (st.isSymbolicLink())
        return 'a symbolic link';
    if (st.isFIFO())
        return 'a FIFO (named pipe)';
    if (st.isSocket())
        return 'a socket';
    if (st.isCharacterDevice())
        return 'a character device';
    if (st.isBlockDevice())
        return 'a block device';
    return 'a special file';
}
export function notTakenReason(st) {
    if (st.isFile() || st.isDirectory())
        return null;
    if (st.isSymbolicLink())
        return 'a symbolic link: not followed (the agent reads each file inside its folder once; point at the real folder instead)';
    return `${fileKind(st)}, not a regular file`;
}
const READ_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW;
const READ_FLAGS_FOLLOW = constants.O_RDONLY | constants.O_NONBLOCK;
export async function openRegularFile(file, options = {}) {
    const follow = options.followSymlinks === true;
    const before = follow ? await stat(file) : await lstat(file);
    if (!before.isFile())
        throw new NotRegularFileError(file, fileKind(before));
    let fh;
    try {
        fh = await open(file, follow ? READ_FLAGS_FOLLOW : READ_FLAGS);
    }
    catch (err) {
        throw openError(file, err);
    }
    const st = await fh.stat();
    if (!st.isFile()) {
        await fh.close();
        throw new NotRegularFileError(file, fileKind(st));
    }
    return fh;
}
function openError(file, err) {
    const code = err.code;
    if (code === 'ELOOP')
        return new NotRegularFileError(file, 'a symbolic link');
    if (code === 'ENXIO')
        return new NotRegularFileError(file, 'a socket');
    return err;
}
class SyncReadFile {
    fd;
    constructor(fd) {
        this.fd = fd;
    }
    read(buffer, offset, length, position) {
        return settled(() => ({ bytesRead: this.readSync(buffer, offset, length, position) }));
    }
    readSync(buffer, offset, length, position) {
        return readSync(this.open(), buffer, offset, length, position);
    }
    stat() {
        return settled(() => fstatSync(this.open()));
    }
    close() {
        const fd = this.fd;
        this.fd = null;
        return settled(() => {
            if (fd !== null)
                closeSync(fd);
        });
    }
    open() {
        if (this.fd === null)
            throw Object.assign(new Error('file closed'), { code: 'EBADF' });
        return this.fd;
    }
}
function settled(fn) {
    return new Promise((resolve) => resolve(fn()));
}
export function openRegularFileStat(file) {
    return settled(() => {
        const before = lstatSync(file);
        if (!before.isFile())
            throw new NotRegularFileError(file, fileKind(before));
        let fd;
        try {
            fd = openSync(file, READ_FLAGS);
        }
        catch (err) {
            throw openError(file, err);
        }
        let st;
        try {
            st = fstatSync(fd);
        }
        catch (err) {
            closeSync(fd);
            throw err;
        }
        if (!st.isFile()) {
            closeSync(fd);
            throw new NotRegularFileError(file, fileKind(st));
        }
        return { handle: new SyncReadFile(fd), stats: st };
    });
}
export class FileTooLargeError extends StationAgentError {
    file;
    maxBytes;
    code = 'ERR_FILE_TOO_LARGE';
    constructor(file, maxBytes) {
        super(`${file}: larger than ${maxBytes} bytes, not read`);
        this.file = file;
        this.maxBytes = maxBytes;
    }
}
export async function readRegularFileBounded(file, maxBytes, options = {}) {
    const fh = await openRegularFile(file, options);
    try {
        const st = await fh.stat();
        if (st.size > maxBytes)
            throw new FileTooLargeError(file, maxBytes);
        const buf = Buffer.alloc(maxBytes + 1);
        let length = 0;
        for (;;) {
            const { bytesRead } = await fh.read(buf, length, buf.length - length, null);
            if (bytesRead === 0)
                break;
            length += bytesRead;
            if (length > maxBytes)
                throw new FileTooLargeError(file, maxBytes);
        }
        const bytes = Buffer.from(buf.subarray(0, length));
        return { text: bytes.toString('utf8'), bytes, mode: st.mode };
    }
    finally {
        await fh.close();
    }
}
export async function readRegularFileText(file) {
    return withRegularFile(file, (fh) => fh.readFile('utf8'));
}
export async function withRegularFile(file, read, options = {}) {
    const fh = await openRegularFile(file, options);
    try {
        return await read(fh);
    }
    finally {
        await fh.close();
    }
}
