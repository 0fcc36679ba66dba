import { parentPort } from 'node:worker_threads';
import { encodeWavToFlac } from './flac-encode-job.js';
import { serializeError } from './flac-worker-protocol.js';
import { libFlacJsEncoder, loadLibFlac } from './libflac.js';
const port = parentPort;
if (port === null)
    throw new Error('flac-worker.js must be started as a worker thread');
port.on('message', (request) => {
    void handle(request).then((response) => port.postMessage(response, response.ok && response.result.data ? [response.result.data.buffer] : []));
});
async function handle({ id, job }) {
    try {
        const { flac, variant } = await loadLibFlac();
        const result = await encodeWavToFlac(libFlacJsEncoder(flac), job, `libflacjs ${variant} (worker thread)`);
        return { id, ok: true, result };
    }
    catch (err) {
        return { id, ok: false, error: serializeError(err) };
    }
}
