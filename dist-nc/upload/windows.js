import { luxon } from '../system/luxon.js';
import { parseTimeRange } from '../config/time-range.js';
export { parseTimeRange };
function contains(r, minute) {
    return r.start < r.end ? minute >= r.start && minute < r.end : minute >= r.start || minute < r.end;
}
export class UploadWindows {
    zone;
    ranges;
    constructor(texts, zone) {
        this.zone = zone;
        this.ranges = texts.map((t) => {
            const r = parseTimeRange(t);
            if (typeof r === 'string')
                throw new TypeError(`upload window ${r}`);
            return r;
        });
    }
    get restricted() {
        return this.ranges.length > 0;
    }
    isOpen(at) {
        if (!this.restricted)
            return true;
        const local = luxon().DateTime.fromMillis(at, { zone: this.zone });
        const minute = local.hour * 60 + local.minute;
        return this.ranges.some((r) => contains(r, minute));
    }
    state(at) {
        const open = this.isOpen(at);
        return { open, changesAt: this.restricted ? this.nextChange(at, open) : null };
    }
    nextChange(at, open) {
        const today = luxon().DateTime.fromMillis(at, { zone: this.zone }).startOf('day');
        const candidates = [];
        for (let day = 0; day <= 3; day++) {
            const date = today.plus({ days: day });
            for (const r of this.ranges) {
                for (const minute of [r.start, r.end]) {
                    const t = date.set({ hour: Math.floor(minute / 60) % 24, minute: minute % 60 }).plus({ days: minute === 1440 ? 1 : 0 });
                    if (t.toMillis() > at)
                        candidates.push(t.toMillis());
                }
            }
        }
        candidates.sort((a, b) => a - b);
        return candidates.find((t) => this.isOpen(t) !== open) ?? null;
    }
}
