export class GroupCommit {
    queue;
    onPending;
    pending = [];
    commits = 0;
    recorded = 0;
    constructor(queue, onPending) {
        this.queue = queue;
        this.onPending = onPending;
    }
    get waiting() {
        return this.pending.length;
    }
    record(write) {
        return new Promise((resolve, reject) => {
            this.pending.push({ write, resolve, reject });
            if (this.pending.length === 1)
                this.onPending();
        });
    }
    commit(then) {
        const batch = this.pending;
        this.pending = [];
        const errors = new Map();
        let result;
        let wrote;
        try {
            ({ wrote } = this.queue.commit(() => {
                for (const w of batch) {
                    try {
                        this.queue.savepoint(w.write);
                    }
                    catch (err) {
                        errors.set(w, err);
                    }
                }
                try {
                    result = { value: this.queue.savepoint(then) };
                }
                catch (error) {
                    result = { error };
                }
            }, { durable: batch.length > 0 }));
        }
        catch (err) {
            for (const w of batch)
                w.reject(err);
            throw err;
        }
        if (wrote)
            this.commits++;
        this.recorded += batch.length;
        for (const w of batch) {
            if (errors.has(w))
                w.reject(errors.get(w));
            else
                w.resolve();
        }
        if (!result || 'error' in result)
            throw result?.error;
        return result.value;
    }
}
