export class Alerter {
    options;
    records;
    constructor(options, records = {}) {
        this.options = options;
        this.records = records;
    }
    retime(options) {
        this.options = options;
    }
    get state() {
        return this.records;
    }
    evaluate(conditions, now) {
        const before = JSON.stringify(this.records);
        const notices = [];
        const active = new Map(conditions.map((c) => [c.key, c]));
        for (const c of conditions) {
            const r = (this.records[c.key] ??= { event: c.event, reason: c.reason, message: c.message, activeSince: null, clearSince: null, notified: null, firedAt: null });
            r.activeSince ??= now;
            r.clearSince = null;
            const held = now - r.activeSince >= this.options.holdMs;
            const spaced = r.firedAt === null || now - r.firedAt >= this.options.minIntervalMs;
            if (r.notified !== 'firing' && held && spaced) {
                r.message = c.message;
                r.notified = 'firing';
                r.firedAt = now;
                notices.push({ key: c.key, event: r.event, state: 'firing', reason: r.reason, message: c.message, since: r.activeSince, at: now });
            }
        }
        for (const [key, r] of Object.entries(this.records)) {
            if (active.has(key))
                continue;
            r.activeSince = null;
            r.clearSince ??= now;
            if (r.notified === 'firing' && now - r.clearSince >= this.options.holdMs) {
                r.notified = 'resolved';
                notices.push({ key, event: r.event, state: 'resolved', reason: r.reason, message: `recovered: ${r.message}`, since: r.clearSince, at: now });
            }
            if (r.notified !== 'firing' && (r.firedAt === null || now - r.firedAt >= this.options.minIntervalMs))
                delete this.records[key];
        }
        return { notices, changed: JSON.stringify(this.records) !== before };
    }
}
