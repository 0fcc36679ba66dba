import { pacedStream, TokenBucket } from './bandwidth.js';
import { DailyBudget } from './data-budget.js';
import { UploadWindows } from './windows.js';
export const RATE_WINDOW_S = 10;
export class LinkPolicy {
    settings;
    store;
    now;
    windows;
    budget;
    bucket = null;
    rate = new RateMeter(RATE_WINDOW_S);
    constructor(settings, store, now = Date.now) {
        this.settings = settings;
        this.store = store;
        this.now = now;
        this.update(settings);
    }
    update(settings) {
        this.budget?.flush();
        this.settings = settings;
        this.windows = new UploadWindows(settings.windows, settings.zone);
        this.budget = new DailyBudget(settings.audioBytesPerDay, settings.zone, this.store, this.now);
        this.bucket = settings.audioBytesPerSec ? new TokenBucket({ rate: settings.audioBytesPerSec }) : null;
    }
    verdict(at = this.now()) {
        const w = this.windows.state(at);
        const verdict = (uploads, audio, held, changesAt) => ({
            uploads,
            audio,
            held,
            changesAt,
            changesInMs: changesAt === null ? null : Math.max(0, changesAt - at),
        });
        const windows = this.settings.windows.join(', ');
        if (!w.open && !this.settings.windowsAudioOnly)
            return verdict(false, false, `outside the upload windows (${windows})`, w.changesAt);
        if (!w.open)
            return verdict(true, false, `audio waits: outside the upload windows (${windows})`, w.changesAt);
        if (!this.budget.allows()) {
            const b = this.budget.state();
            return verdict(true, false, `audio waits: the day's data budget of ${b.limit} bytes is spent`, b.renewsAt);
        }
        return verdict(true, true, null, w.changesAt);
    }
    audioBody() {
        return pacedStream(this.bucket, (n) => this.audioSent(n));
    }
    get pacesAudio() {
        return this.bucket !== null;
    }
    audioSent(bytes) {
        this.budget.add(bytes);
        this.rate.add(bytes, this.now());
    }
    audioDone() {
        this.budget.flush();
    }
    status(at = this.now()) {
        const w = this.windows.state(at);
        return {
            windows: [...this.settings.windows],
            windowsAudioOnly: this.settings.windowsAudioOnly,
            windowOpen: w.open,
            windowChangesAt: w.changesAt,
            budget: this.budget.state(),
            capBytesPerSec: this.settings.audioBytesPerSec,
            rateBytesPerSec: this.rate.perSecond(at),
        };
    }
}
class RateMeter {
    seconds;
    slots;
    constructor(seconds) {
        this.seconds = seconds;
        this.slots = Array.from({ length: seconds }, () => ({ second: -1, bytes: 0 }));
    }
    add(bytes, at) {
        const second = Math.floor(at / 1000);
        const slot = this.slots[second % this.seconds];
        if (slot.second !== second)
            Object.assign(slot, { second, bytes: 0 });
        slot.bytes += bytes;
    }
    perSecond(at) {
        const now = Math.floor(at / 1000);
        const total = this.slots.filter((s) => s.second > now - this.seconds && s.second <= now).reduce((a, s) => a + s.bytes, 0);
        return Math.round(total / this.seconds);
    }
}
