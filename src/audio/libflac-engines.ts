import { unlink } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';
import { FlacEncoderError } from './errors.js';
import { encodeWavToFlac } from './flac-encode-job.js';
import type { EncodeJob, EncodeResult } from './flac-encode-job.js';
import type { EncodeEngine } from './flac-engines.js';
import { deserializeError } from './flac-worker-protocol.js';
import type { WorkerRequest, WorkerResponse } from './flac-worker-protocol.js';
import { libFlacJsEncoder, loadLibFlac } from './libflac.js';

/*
 * The fallback engines, libflacjs (WebAssembly) in this thread or in a worker thread: loaded
 * by flac-encoder.ts only where libFLAC's addon is not there or not chosen, so a station
 * encoding with the addon never loads them.
 */

/**
 * libflacjs in this thread. Used where the compiled worker file does not exist (the
 * TypeScript sources under vitest) and by request. The job lets the event loop run every
 * MiB of WAV or so (flac-encode-job.ts); the encoding in between blocks it.
 */
export function inProcessEngine(): EncodeEngine {
  return {
    name: 'libflacjs (in-process)',
    async run(job) {
      const { flac, variant } = await loadLibFlac();
      return encodeWavToFlac(libFlacJsEncoder(flac), job, `libflacjs ${variant} (in-process)`);
    },
    async close() {},
  };
}

interface Pending {
  job: EncodeJob;
  resolve: (result: EncodeResult) => void;
  reject: (err: Error) => void;
}

/**
 * libflacjs in one long-lived worker thread: started on the first job, reused, replaced
 * if it dies, terminated by close(). Between jobs the worker is unref'd so an idle
 * encoder never keeps the process alive; during a job it is ref'd so the process does
 * not exit under it.
 */
export function workerEngine(workerUrl: URL): EncodeEngine {
  let worker: Worker | undefined;
  let nextId = 1;
  const pending = new Map<number, Pending>();

  const failAll = (err: Error) => {
    for (const [id, p] of pending) {
      pending.delete(id);
      p.reject(err);
    }
  };

  const start = (): Worker => {
    const w = new Worker(workerUrl);
    w.unref();
    w.on('message', (response: WorkerResponse) => {
      const p = pending.get(response.id);
      if (!p) return;
      pending.delete(response.id);
      if (pending.size === 0) w.unref();
      if (response.ok) p.resolve(response.result);
      else p.reject(deserializeError(response.error));
    });
    w.on('error', (err: Error) => {
      if (worker === w) worker = undefined;
      failAll(new FlacEncoderError(`the FLAC worker thread failed: ${err.message}`, { cause: err }));
    });
    w.on('exit', (code) => {
      if (worker === w) worker = undefined;
      failAll(new FlacEncoderError(`the FLAC worker thread exited (code ${code}) during a job`));
    });
    return w;
  };

  return {
    name: 'libflacjs (worker thread)',
    run(job) {
      return new Promise<EncodeResult>((resolve, reject) => {
        worker ??= start();
        const id = nextId++;
        pending.set(id, { job, resolve, reject });
        worker.ref();
        worker.postMessage({ id, job } satisfies WorkerRequest);
      });
    },
    async close(force) {
      const w = worker;
      worker = undefined;
      if (!w) return;
      const stopped = [...pending.values()].map((p) => p.job);
      if (force) failAll(new FlacEncoderError('the FLAC encoder was closed during the job'));
      await w.terminate();
      // A terminated worker cannot clean up after itself.
      await Promise.all(stopped.flatMap((job) => (job.dest === undefined ? [] : [unlink(`${job.dest}.part`).catch(() => undefined)])));
    },
  };
}
