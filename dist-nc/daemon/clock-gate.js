import { errorMessage } from '../errors.js';
import { releasePlausibleTimeHolds } from '../ingest/time-holds.js';
import { clockSyncState } from '../system/clock.js';
import { clockHold } from '../system/clock-gate.js';
const CLOCK_CHECK_MS = 60_000;
export class ClockGate {
    deps;
    name = 'clock gate';
    state = 'unknown';
    mode;
    timer;
    constructor(config, deps) {
        this.deps = deps;
        this.mode = config.clock.requireSync;
    }
    hold = () => clockHold(this.mode, this.state);
    async start() {
        this.state = await clockSyncState();
        this.reviewTimeHolds();
        this.timer = setInterval(() => void this.check(), CLOCK_CHECK_MS);
    }
    stop() {
        clearInterval(this.timer);
    }
    reload(next) {
        if (next.clock.requireSync === this.mode)
            return;
        this.mode = next.clock.requireSync;
        this.reviewTimeHolds();
        if (!this.hold())
            this.deps.bus.emit('sendable');
    }
    async check() {
        const s = await clockSyncState();
        if (s !== this.state)
            this.deps.log.info({ clock: s }, `system clock: ${s}`);
        this.state = s;
        this.reviewTimeHolds();
        if (!this.hold())
            this.deps.bus.emit('sendable');
    }
    reviewTimeHolds() {
        if (this.hold())
            return;
        try {
            const released = releasePlausibleTimeHolds(this.deps.queue);
            if (released.recordings + released.detections > 0) {
                this.deps.log.info(released, 'items held for an implausible time are plausible by the clock now: released');
                this.deps.bus.emit('sendable');
            }
        }
        catch (err) {
            this.deps.log.warn(`reviewing held items failed: ${errorMessage(err)}`);
        }
    }
}
