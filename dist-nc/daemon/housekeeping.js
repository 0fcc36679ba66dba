import { SpeciesGateSweep } from '../policy/species-gate-sweep.js';
import { RetentionSweeper } from '../upload/retention.js';
const SWEEP_MS = 60_000;
export class Housekeeping {
    deps;
    name = 'housekeeping';
    retention;
    timer;
    constructor(config, deps) {
        this.deps = deps;
        const speciesGate = (c) => new SpeciesGateSweep(deps.queue, c.filters.minDetectionsPer24h, deps.log);
        this.retention = new RetentionSweeper(deps.queue, config, deps.log, deps.now, speciesGate);
    }
    start() {
        void this.retention.sweep();
        this.timer = setInterval(() => {
            void this.deps.sweepIncoming().catch(() => 0);
            void this.retention.sweep();
        }, SWEEP_MS);
    }
    stop() {
        clearInterval(this.timer);
    }
    reload(next) {
        this.retention.reconfigure(next);
    }
    async run() {
        await this.deps.sweepIncoming();
        await this.retention.sweep();
    }
}
