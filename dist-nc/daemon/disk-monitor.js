import { errorMessage } from '../errors.js';
import { diskFree, isDiskGettingLow, isDiskLow } from '../system/disk.js';
const DISK_CHECK_MS = 60_000;
export class DiskMonitor {
    dataDir;
    deps;
    name = 'disk monitor';
    state = { freeBytes: null, spoolBytes: 0, low: false };
    timer;
    minFreeMb;
    constructor(dataDir, config, deps) {
        this.dataDir = dataDir;
        this.deps = deps;
        this.minFreeMb = config.disk.minFreeMb;
    }
    async start() {
        await this.check();
        this.timer = setInterval(() => void this.check(), DISK_CHECK_MS);
    }
    stop() {
        clearInterval(this.timer);
    }
    async reload(next) {
        if (next.disk.minFreeMb === this.minFreeMb)
            return;
        this.minFreeMb = next.disk.minFreeMb;
        await this.check();
    }
    get minFree() {
        return this.minFreeMb;
    }
    get gettingLow() {
        return this.state.freeBytes != null && isDiskGettingLow(this.state.freeBytes, this.minFreeMb);
    }
    async check() {
        const { log } = this.deps;
        try {
            const free = await diskFree(this.dataDir);
            const low = isDiskLow(free.freeBytes, this.minFreeMb);
            if (low && !this.state.low)
                log.error(`free disk space below disk.minFreeMb (${this.minFreeMb} MB): new audio is not spooled`);
            if (!low && this.state.low)
                log.info('free disk space is back above disk.minFreeMb: audio is spooled again');
            this.state = { freeBytes: free.freeBytes, spoolBytes: this.deps.spoolBytes(), low };
        }
        catch (err) {
            log.warn(`disk check failed: ${errorMessage(err)}`);
        }
    }
}
