import { luxon } from '../system/luxon.js';
export class DailyBudget {
    limit;
    zone;
    store;
    now;
    loaded;
    dirty = false;
    constructor(limit, zone, store, now = Date.now) {
        this.limit = limit;
        this.zone = zone;
        this.store = store;
        this.now = now;
    }
    get current() {
        return (this.loaded ??= this.store.load() ?? { day: this.dayOf(this.now()), bytes: 0 });
    }
    set current(value) {
        this.loaded = value;
    }
    add(bytes) {
        if (this.limit === null)
            return;
        this.roll();
        this.current.bytes += bytes;
        this.dirty = true;
    }
    allows() {
        if (this.limit === null)
            return true;
        this.roll();
        return this.current.bytes < this.limit;
    }
    usedToday() {
        if (this.limit === null)
            return 0;
        this.roll();
        return this.current.bytes;
    }
    state() {
        if (this.limit === null)
            return null;
        const used = this.usedToday();
        return { limit: this.limit, usedToday: used, left: Math.max(0, this.limit - used), renewsAt: dayAfter(this.current.day, this.zone) };
    }
    flush() {
        if (!this.dirty || this.limit === null)
            return;
        this.store.save({ ...this.current });
        this.dirty = false;
    }
    roll() {
        const today = this.dayOf(this.now());
        if (today > this.current.day) {
            this.current = { day: today, bytes: 0 };
            this.dirty = true;
        }
    }
    dayOf(at) {
        return localDay(at, this.zone);
    }
}
export function localDay(at, zone) {
    const { DateTime } = luxon();
    const dt = typeof at === 'number' ? DateTime.fromMillis(at, { zone }) : DateTime.fromISO(at, { zone });
    return dt.toISODate() ?? '';
}
export function dayAfter(day, zone) {
    return luxon().DateTime.fromISO(day, { zone }).plus({ days: 1 }).toMillis();
}
