import { errorMessage } from '../errors.js';
import { setMeta } from '../queue/index.js';
import { OuterTransaction } from '../queue/transaction.js';
import { RUNTIME_HEARTBEAT_MS, RUNTIME_META_KEY } from '../status/runtime.js';
const RUNTIME_CHECK_MS = 10_000;
export class RuntimeReporter {
    deps;
    name = 'runtime reporter';
    timer;
    dbFailures = 0;
    lastWritten = { at: 0, signature: '' };
    lastSuccessDirty = false;
    constructor(deps) {
        this.deps = deps;
        deps.bus.on('outcome', (o) => {
            if (o.outcome === 'uploaded' || o.outcome === 'reconciled')
                this.lastSuccessDirty = true;
        });
        deps.bus.on('tokenAccepted', () => this.write());
        deps.bus.on('running', () => this.write(true));
    }
    start() {
        this.timer = setInterval(() => this.write(), RUNTIME_CHECK_MS);
    }
    stop() {
        clearInterval(this.timer);
        this.write(true);
    }
    write(force = false) {
        const snap = this.deps.snapshot();
        const sig = signature(snap);
        if (!force && sig === this.lastWritten.signature && snap.updatedAt - this.lastWritten.at < RUNTIME_HEARTBEAT_MS)
            return;
        try {
            OuterTransaction.run(this.deps.queue, 'the runtime snapshot', () => {
                setMeta(this.deps.queue, RUNTIME_META_KEY, snap);
                const at = this.lastSuccessDirty ? this.deps.lastSuccessAt() : null;
                if (at)
                    setMeta(this.deps.queue, 'lastSuccessAt', at);
            }, { durable: false });
            this.lastWritten = { at: snap.updatedAt, signature: sig };
            this.lastSuccessDirty = false;
            this.dbFailures = 0;
        }
        catch (err) {
            this.dbFailures++;
            this.deps.log.error(`cannot write to the queue database: ${errorMessage(err)}`);
            if (this.dbFailures >= 3) {
                this.deps.log.fatal('the queue database stays unwritable: exiting for a restart');
                process.exit(70);
            }
        }
    }
}
function signature(s) {
    return JSON.stringify([s.uploader.circuit, s.uploader.paused.map((p) => p.reason), s.clock, s.disk.low, s.configSync.state, s.watcher.ready, s.mqtt?.connected]);
}
