import { unlink } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';
import { FlacEncoderError } from './errors.js';
import { encodeWavToFlac } from './flac-encode-job.js';
import { deserializeError } from './flac-worker-protocol.js';
import { libFlacJsEncoder, loadLibFlac } from './libflac.js';
export function inProcessEngine() {
    return {
        name: 'libflacjs (in-process)',
        async run(job) {
            const { flac, variant } = await loadLibFlac();
            return encodeWavToFlac(libFlacJsEncoder(flac), job, `libflacjs ${variant} (in-process)`);
        },
        async close() { },
    };
}
export function nativeEngine(native) {
    let closing = false;
    const name = `libFLAC ${native.version} (flac-bindings, in-process)`;
    return {
        name,
        run: (job) => encodeWavToFlac(native.createEncoder, job, name, () => closing),
        close(force) {
            if (force)
                closing = true;
            return Promise.resolve();
        },
    };
}
export function workerEngine(workerUrl) {
    let worker;
    let nextId = 1;
    const pending = new Map();
    const failAll = (err) => {
        for (const [id, p] of pending) {
            pending.delete(id);
            p.reject(err);
        }
    };
    const start = () => {
        const w = new Worker(workerUrl);
        w.unref();
        w.on('message', (response) => {
            const p = pending.get(response.id);
            if (!p)
                return;
            pending.delete(response.id);
            if (pending.size === 0)
                w.unref();
            if (response.ok)
                p.resolve(response.result);
            else
                p.reject(deserializeError(response.error));
        });
        w.on('error', (err) => {
            if (worker === w)
                worker = undefined;
            failAll(new FlacEncoderError(`the FLAC worker thread failed: ${err.message}`, { cause: err }));
        });
        w.on('exit', (code) => {
            if (worker === w)
                worker = undefined;
            failAll(new FlacEncoderError(`the FLAC worker thread exited (code ${code}) during a job`));
        });
        return w;
    };
    return {
        name: 'libflacjs (worker thread)',
        run(job) {
            return new Promise((resolve, reject) => {
                worker ??= start();
                const id = nextId++;
                pending.set(id, { job, resolve, reject });
                worker.ref();
                worker.postMessage({ id, job });
            });
        },
        async close(force) {
            const w = worker;
            worker = undefined;
            if (!w)
                return;
            const stopped = [...pending.values()].map((p) => p.job);
            if (force)
                failAll(new FlacEncoderError('the FLAC encoder was closed during the job'));
            await w.terminate();
            await Promise.all(stopped.flatMap((job) => (job.dest === undefined ? [] : [unlink(`${job.dest}.part`).catch(() => undefined)])));
        },
    };
}
