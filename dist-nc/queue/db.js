import { mkdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { errorMessage } from '../errors.js';
import { QueueError } from './errors.js';
import { migrate } from './migrations.js';
export class Queue {
    db;
    path;
    statements = new Map();
    constructor(db, path) {
        this.db = db;
        this.path = path;
    }
    stmt(sql) {
        let statement = this.statements.get(sql);
        if (!statement) {
            statement = this.db.prepare(sql);
            this.statements.set(sql, statement);
        }
        return statement;
    }
    write(fn) {
        return this.db.transaction(fn).immediate();
    }
    read(fn) {
        return this.db.transaction(fn).deferred();
    }
    integrityCheck() {
        let rows;
        try {
            rows = this.db.pragma('integrity_check', { simple: false });
        }
        catch (err) {
            return { ok: false, problems: [`integrity check of ${this.path} failed: ${errorMessage(err)}`] };
        }
        const problems = rows.map((r) => r.integrity_check).filter((line) => line !== 'ok');
        return { ok: problems.length === 0, problems };
    }
    get open() {
        return this.db.open;
    }
    close() {
        if (this.db.open)
            this.db.close();
    }
}
export const PAGE_SIZE = 1024;
export const CACHE_KIB = 2048;
export const WAL_CHECKPOINT_BYTES = 4 * 1024 * 1024;
export function openQueue(dbPath, options = {}) {
    const file = path.resolve(dbPath);
    try {
        mkdirSync(path.dirname(file), { recursive: true });
    }
    catch (err) {
        throw new QueueError('ERR_QUEUE', `cannot create the folder of queue database ${file}: ${errorMessage(err)}`, { cause: err });
    }
    let db;
    try {
        db = new Database(file);
        db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5_000}`);
        db.pragma(`page_size = ${PAGE_SIZE}`);
        const mode = db.pragma('journal_mode = WAL', { simple: true });
        if (mode.toLowerCase() !== 'wal') {
            throw new QueueError('ERR_QUEUE', `queue database ${file} cannot use WAL journaling (got ${mode})`);
        }
        db.pragma('synchronous = FULL');
        const pageSize = db.pragma('page_size', { simple: true });
        db.pragma(`wal_autocheckpoint = ${Math.max(1000, Math.floor(WAL_CHECKPOINT_BYTES / pageSize))}`);
        db.pragma('foreign_keys = ON');
        db.pragma(`journal_size_limit = ${32 * 1024 * 1024}`);
        db.pragma(`cache_size = -${CACHE_KIB}`);
        migrate(db, file);
        return new Queue(db, file);
    }
    catch (err) {
        db?.close();
        if (err instanceof QueueError)
            throw err;
        throw new QueueError('ERR_QUEUE', describeOpenError(file, err), { cause: err });
    }
}
function describeOpenError(file, err) {
    const code = err && typeof err === 'object' && 'code' in err ? String(err.code) : '';
    if (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT')) {
        return `queue database ${file} is not a SQLite database or is corrupt (${errorMessage(err)}); move it aside and restart to begin an empty queue`;
    }
    return `cannot open queue database ${file}: ${errorMessage(err)}`;
}
