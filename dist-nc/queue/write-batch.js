import { OuterTransaction } from './transaction.js';
export const INGEST_BATCH = { maxRows: 10_000, maxMs: 250 };
export class WriteBatch {
    limits;
    now;
    tx;
    openSince = null;
    commits = 0;
    constructor(q, limits, now = () => performance.now()) {
        this.limits = limits;
        this.now = now;
        this.tx = new OuterTransaction(q, 'a write batch');
    }
    begin() {
        if (this.openSince !== null && this.tx.isOpen)
            return;
        this.tx.begin();
        this.openSince = this.now();
    }
    commitIfFull() {
        if (this.openSince === null)
            return;
        const full = this.tx.changes() >= this.limits.maxRows || this.now() - this.openSince >= this.limits.maxMs;
        if (!full)
            return;
        this.commit();
        this.begin();
    }
    commit() {
        if (this.openSince === null)
            return;
        this.openSince = null;
        if (this.tx.commit())
            this.commits++;
    }
    rollback() {
        this.openSince = null;
        this.tx.rollback();
    }
}
