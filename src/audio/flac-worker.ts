import { parentPort } from 'node:worker_threads';
import { encodeWavToFlac } from './flac-encode-job.js';
import { serializeError } from './flac-worker-protocol.js';
import type { WorkerRequest, WorkerResponse } from './flac-worker-protocol.js';
import { libFlacJsEncoder, loadLibFlac } from './libflac.js';

/**
 * The worker thread that runs libFLAC, so encoding an hour of audio never blocks the
 * agent's event loop. It is started by flac-encoder.ts from the compiled
 * `dist/audio/flac-worker.js`, takes one job at a time and lives until terminated.
 */
const port = parentPort;
if (port === null) throw new Error('flac-worker.js must be started as a worker thread');

port.on('message', (request: WorkerRequest) => {
  // A FLAC encoded into memory moves to the caller's thread without a copy.
  void handle(request).then((response) => port.postMessage(response, response.ok && response.result.data ? [response.result.data.buffer as ArrayBuffer] : []));
});

async function handle({ id, job }: WorkerRequest): Promise<WorkerResponse> {
  try {
    const { flac, variant } = await loadLibFlac();
    const result = await encodeWavToFlac(libFlacJsEncoder(flac), job, `libflacjs ${variant} (worker thread)`);
    return { id, ok: true, result };
  } catch (err) {
    return { id, ok: false, error: serializeError(err) };
  }
}
