import { EARLIEST_PLAUSIBLE_TIME, MAX_AHEAD_MS, isPlausibleTimestamp } from '../system/plausible-time.js';
const STEADY_MS = 60_000;
export class ExpiryClock {
    options;
    wall;
    mono;
    synced;
    offset;
    jump = null;
    constructor(options = {}) {
        this.options = options;
        this.wall = options.wall ?? Date.now;
        this.mono = options.mono ?? (() => performance.now());
        this.synced = options.synced ?? (() => false);
        this.offset = options.lastKnown != null && options.lastKnown > 0 ? options.lastKnown - this.mono() : null;
    }
    now = () => {
        const wall = this.wall();
        const mono = this.mono();
        if (this.synced())
            return this.trust(wall, mono);
        if (this.offset === null)
            return wall >= EARLIEST_PLAUSIBLE_TIME.getTime() ? this.trust(wall, mono) : wall;
        const reference = mono + this.offset;
        if (isPlausibleTimestamp(new Date(wall), new Date(reference))) {
            return wall >= reference ? this.trust(wall, mono) : wall;
        }
        if (wall < reference)
            return wall;
        const offset = wall - mono;
        if (this.jump && Math.abs(this.jump.offset - offset) <= STEADY_MS) {
            if (mono - this.jump.since >= MAX_AHEAD_MS)
                return this.trust(wall, mono);
        }
        else {
            this.jump = { offset, since: mono };
            this.options.onJump?.(wall, reference);
        }
        return reference;
    };
    trust(wall, mono) {
        this.offset = wall - mono;
        this.jump = null;
        return wall;
    }
}
