import { createFlacEncoder } from '../audio/flac-encoder.js';
import { SoundscapePreparer } from '../encode/soundscape-preparer.js';
import { SpoolCompaction } from '../encode/spool-compaction.js';
export class EncoderComponent {
    name = 'encoder';
    soundscapes;
    encoder;
    compaction;
    constructor(config, deps) {
        this.encoder = createFlacEncoder({ engine: config.upload.flacEncoder });
        const busy = new Set();
        this.soundscapes = new SoundscapePreparer(this.encoder, deps.log, () => deps.bus.emit('sendable'), { busy });
        this.compaction = new SpoolCompaction(deps.queue, this.encoder, deps.log, {
            busy,
            diskLow: deps.diskLow,
            onCompacted: () => deps.bus.emit('sendable'),
        });
        deps.bus.on('queued', () => this.compaction.notify());
    }
    start() {
        this.compaction.start();
    }
    async stop() {
        this.soundscapes.stop();
        const encoderClosed = this.encoder.close({ force: true });
        await this.compaction.stop();
        await encoderClosed;
    }
}
