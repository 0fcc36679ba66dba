import { QueueError } from './errors.js';
export class OuterTransaction {
    q;
    what;
    changesAtBegin = null;
    constructor(q, what) {
        this.q = q;
        this.what = what;
    }
    static run(q, what, fn, options = {}) {
        const durable = options.durable ?? true;
        if (!durable) {
            if (q.db.inTransaction)
                throw new QueueError('ERR_QUEUE', `${what} cannot begin inside another transaction on ${q.path}`);
            q.stmt('PRAGMA synchronous = NORMAL').run();
            try {
                return OuterTransaction.run(q, what, fn);
            }
            finally {
                q.stmt('PRAGMA synchronous = FULL').run();
            }
        }
        const tx = new OuterTransaction(q, what);
        tx.begin();
        let value;
        try {
            value = fn();
        }
        catch (err) {
            tx.rollback();
            throw err;
        }
        const wrote = tx.changes() > 0;
        if (!tx.commit())
            throw new QueueError('ERR_QUEUE', `${what} on ${q.path} was rolled back by SQLite before its commit`);
        return { value, wrote };
    }
    get isOpen() {
        return this.changesAtBegin !== null && this.q.db.inTransaction;
    }
    begin() {
        if (this.q.db.inTransaction) {
            throw new QueueError('ERR_QUEUE', `${this.what} cannot begin inside another transaction on ${this.q.path}: its commit would not be durable`);
        }
        this.q.stmt('BEGIN IMMEDIATE').run();
        this.changesAtBegin = this.totalChanges();
    }
    changes() {
        return this.changesAtBegin === null ? 0 : this.totalChanges() - this.changesAtBegin;
    }
    commit() {
        const open = this.isOpen;
        this.changesAtBegin = null;
        if (!open)
            return false;
        try {
            this.q.stmt('COMMIT').run();
            return true;
        }
        catch (err) {
            if (this.q.db.inTransaction)
                this.q.stmt('ROLLBACK').run();
            throw err;
        }
    }
    rollback() {
        this.changesAtBegin = null;
        if (this.q.db.inTransaction)
            this.q.stmt('ROLLBACK').run();
    }
    totalChanges() {
        return this.q.stmt('SELECT total_changes()').pluck().get();
    }
}
