import { mkdirSync, openSync, readSync, closeSync, readFileSync, statSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import path from 'node:path';
import Database from 'better-sqlite3';
import { StationAgentError, errorMessage } from '../errors.js';
import { pidAlive } from './pid.js';
export const DAEMON_LOCK_FILE = 'daemon.lock';
export class DaemonLockError extends StationAgentError {
    dataDir;
    holderPid;
    key;
    code = 'ERR_DAEMON_RUNNING';
    constructor(dataDir, holderPid, key = 'dataDir') {
        const who = holderPid === null ? 'another process' : `another station-agent (pid ${holderPid})`;
        super(key === 'dataDir'
            ? `${who} is already running on dataDir ${dataDir} (it holds the dataDir's lock); ` +
                'only one daemon may use a queue: stop the other one (systemctl stop station-agent) or give this one its own dataDir'
            : `${who} is already watching input.dir ${dataDir}; two daemons on one input folder would each upload every recording: ` +
                'stop the other one (systemctl stop station-agent), or give this one the folder of its own analyzer');
        this.dataDir = dataDir;
        this.holderPid = holderPid;
        this.key = key;
    }
}
export async function acquireDaemonLock(dataDir, inputDir) {
    const dir = path.resolve(dataDir);
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, DAEMON_LOCK_FILE);
    const db = lockFile(dir, file);
    const sockets = [];
    try {
        const own = await lockSocket(dir, 'dataDir');
        if (own)
            sockets.push(own);
        const input = inputDir === undefined ? null : await lockSocket(path.resolve(inputDir), 'input.dir');
        if (input)
            sockets.push(input);
    }
    catch (err) {
        for (const s of sockets)
            s.close();
        db.close();
        throw err;
    }
    return {
        path: file,
        release: () => {
            if (db.open)
                db.close();
            for (const s of sockets.splice(0))
                s.close();
        },
    };
}
function lockFile(dir, file) {
    let db;
    try {
        db = new Database(file, { timeout: 0 });
        db.pragma('locking_mode = EXCLUSIVE');
        db.exec('BEGIN EXCLUSIVE');
        db.pragma(`user_version = ${process.pid}`);
        db.exec('COMMIT');
        return db;
    }
    catch (err) {
        db?.close();
        if (err.code === 'SQLITE_BUSY')
            throw new DaemonLockError(dir, lockHolder(file));
        throw new DaemonLockFileError(file, err);
    }
}
export function daemonSocketName(dir, key = 'dataDir') {
    const st = statSync(dir, { bigint: true });
    return `\0station-agent-${key === 'dataDir' ? 'daemon' : 'input'}:${st.dev}:${st.ino}`;
}
const HOLDER_ANSWER_MS = 1_000;
async function lockSocket(dir, key) {
    if (process.platform !== 'linux')
        return null;
    let name;
    try {
        name = daemonSocketName(dir, key);
    }
    catch (err) {
        if (key === 'input.dir')
            return null;
        throw err;
    }
    const server = createServer((peer) => peer.end(`${process.pid}\n`));
    try {
        await new Promise((resolve, reject) => {
            server.once('error', reject);
            server.listen(name, () => {
                server.off('error', reject);
                resolve();
            });
        });
    }
    catch (err) {
        if (err.code === 'EADDRINUSE')
            throw new DaemonLockError(dir, await socketHolder(name), key);
        throw new DaemonLockFileError(`the abstract socket of ${dir}`, err);
    }
    server.on('error', () => { });
    server.unref();
    return server;
}
function socketHolder(name) {
    return new Promise((resolve) => {
        let text = '';
        const peer = createConnection(name);
        const done = () => {
            clearTimeout(timer);
            peer.destroy();
            const pid = /^(\d+)\n/.exec(text) ? Number(text.trim()) : null;
            resolve(pid !== null && pid !== process.pid ? pid : null);
        };
        const timer = setTimeout(done, HOLDER_ANSWER_MS);
        peer.setEncoding('utf8');
        peer.on('data', (chunk) => (text += chunk.slice(0, 32)));
        peer.on('end', done);
        peer.on('error', done);
    });
}
export class DaemonLockFileError extends StationAgentError {
    code = 'ERR_DAEMON_LOCK';
    constructor(what, cause) {
        super(`cannot lock ${what}: ${errorMessage(cause)}`, { cause });
    }
}
function lockHolder(file) {
    const pid = pidFromProcLocks(file) ?? pidFromHeader(file);
    return pid !== null && pid !== process.pid && pidAlive(pid) ? pid : null;
}
const PROC_LOCK = /^\d+:\s+POSIX\s+\S+\s+\S+\s+(\d+)\s+([0-9a-f]+):([0-9a-f]+):(\d+)\s/;
function pidFromProcLocks(file) {
    try {
        const st = statSync(file, { bigint: true });
        const major = ((st.dev >> 8n) & 0xfffn) | ((st.dev >> 32n) & ~0xfffn);
        const minor = (st.dev & 0xffn) | ((st.dev >> 12n) & ~0xffn);
        for (const line of readFileSync('/proc/locks', 'utf8').split('\n')) {
            const m = PROC_LOCK.exec(line);
            if (!m || BigInt(m[4]) !== st.ino)
                continue;
            if (BigInt(parseInt(m[2], 16)) !== major || BigInt(parseInt(m[3], 16)) !== minor)
                continue;
            return Number(m[1]);
        }
    }
    catch {
    }
    return null;
}
function pidFromHeader(file) {
    try {
        const fd = openSync(file, 'r');
        try {
            const header = Buffer.alloc(64);
            if (readSync(fd, header, 0, 64, 0) < 64 || header.toString('latin1', 0, 15) !== 'SQLite format 3')
                return null;
            const pid = header.readInt32BE(60);
            return pid > 0 ? pid : null;
        }
        finally {
            closeSync(fd);
        }
    }
    catch {
        return null;
    }
}
