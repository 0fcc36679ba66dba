import { CONFIG_RANGES } from '../wire/types.js';
import { errorMessage } from '../errors.js';
import { backoffDelay } from '../system/backoff.js';
import { decide } from './decide.js';
export function checkSettings(settings) {
    const problems = [];
    for (const [key, [min, max]] of Object.entries(CONFIG_RANGES)) {
        const value = settings[key];
        if (value === undefined)
            continue;
        if (typeof value !== 'number' || Number.isNaN(value) || value < min || value > max) {
            problems.push(`station.settings.${key} must be between ${min} and ${max} (got ${JSON.stringify(value)})`);
        }
    }
    return problems;
}
export class ConfigSync {
    api;
    store;
    log;
    backoff;
    generation = 0;
    timer = null;
    abort = new AbortController();
    current = { state: 'idle', at: Date.now() };
    constructor(api, store, log, backoff) {
        this.api = api;
        this.store = store;
        this.log = log;
        this.backoff = backoff;
    }
    get state() {
        return this.current;
    }
    async push(settings) {
        const gen = ++this.generation;
        if (this.timer)
            clearTimeout(this.timer);
        const problems = checkSettings(settings);
        if (problems.length) {
            this.setState({ state: 'rejected', at: Date.now(), error: problems.join('; ') });
            this.log.error(`config sync: not pushed: ${problems.join('; ')}`);
            return;
        }
        await this.attempt(settings, gen, 0);
    }
    stop() {
        this.generation++;
        if (this.timer)
            clearTimeout(this.timer);
        this.abort.abort();
    }
    async attempt(settings, gen, attempt) {
        if (gen !== this.generation)
            return;
        this.setState({ state: attempt === 0 ? 'pending' : 'retrying', at: Date.now(), attempts: attempt });
        try {
            const record = await this.api.updateConfig(settings, this.abort.signal);
            if (gen !== this.generation)
                return;
            this.store.saveStationRecord(record);
            this.setState({ state: 'synced', at: Date.now(), attempts: attempt + 1 });
            this.log.info({ station: record.id }, 'config sync: station settings pushed');
        }
        catch (err) {
            if (gen !== this.generation || this.abort.signal.aborted)
                return;
            const d = decide(err, 'detection');
            if (d.action === 'retry' || d.action === 'unknown' || d.action === 'pause') {
                const delay = d.action === 'pause'
                    ? this.backoff.maxMs
                    : backoffDelay(attempt, this.backoff, d.action === 'retry' ? d.retryAfterMs : undefined);
                this.setState({ state: 'retrying', at: Date.now(), error: d.message, attempts: attempt + 1 });
                this.log.warn({ retryInMs: delay }, `config sync failed, will retry: ${d.message}`);
                this.timer = setTimeout(() => void this.attempt(settings, gen, attempt + 1), delay);
                this.timer.unref();
                return;
            }
            this.setState({ state: 'rejected', at: Date.now(), error: d.message || errorMessage(err), attempts: attempt + 1 });
            this.log.error(`config sync: the service rejected the station settings: ${d.message}`);
        }
    }
    setState(state) {
        this.current = state;
        this.store.saveSyncState(state);
    }
}
