import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { FlacEncoderError } from './errors.js';
import { findFlacProgram, findScratchDir, flacCliEngine } from './flac-cli.js';
import { inProcessEngine, nativeEngine, workerEngine } from './flac-engines.js';
import { loadNativeFlac } from './flac-native.js';
export const FLAC_WORKER_URL = new URL('./flac-worker.js', import.meta.url);
function levelError(level) {
    if (level === undefined || (Number.isInteger(level) && level >= 0 && level <= 8))
        return undefined;
    return new RangeError(`FLAC compression level must be an integer from 0 to 8, got ${level}`);
}
export function createFlacEncoder(options = {}) {
    const invalid = levelError(options.compressionLevel);
    if (invalid)
        throw invalid;
    let engine;
    const queue = [];
    let running;
    let closed = false;
    const getEngine = () => (engine ??= chooseEngine(options).catch((err) => {
        engine = undefined;
        throw err;
    }));
    const pump = () => {
        if (running || queue.length === 0)
            return;
        const item = queue.shift();
        running = item
            .run()
            .then(item.resolve, item.reject)
            .finally(() => {
            running = undefined;
            pump();
        });
    };
    const submit = (srcWav, destFlac, opts) => {
        if (closed)
            return Promise.reject(new FlacEncoderError('the FLAC encoder is closed'));
        const invalidLevel = levelError(opts.compressionLevel);
        if (invalidLevel)
            return Promise.reject(invalidLevel);
        const job = { compressionLevel: options.compressionLevel, ...opts, src: srcWav, ...(destFlac === undefined ? {} : { dest: destFlac }) };
        return new Promise((resolve, reject) => {
            queue.push({ run: async () => (await getEngine()).run(job), resolve, reject });
            pump();
        });
    };
    return {
        encode(srcWav, destFlac, opts = {}) {
            return submit(srcWav, destFlac, opts);
        },
        async encodeToMemory(srcWav, opts = {}) {
            const result = await submit(srcWav, undefined, opts);
            if (!result.data)
                throw new FlacEncoderError(`the encoder returned no FLAC for ${srcWav}`);
            const { buffer, byteOffset, byteLength } = result.data;
            return { ...result, data: Buffer.from(buffer, byteOffset, byteLength) };
        },
        async close({ force = false } = {}) {
            closed = true;
            for (const item of queue.splice(0))
                item.reject(new FlacEncoderError('the FLAC encoder was closed before the job started'));
            const current = running;
            const started = await engine?.catch(() => undefined);
            if (!started)
                return;
            if (force)
                await started.close(true);
            await current;
            await started.close(false);
        },
    };
}
async function chooseEngine(options) {
    const choice = options.engine ?? 'wasm';
    let addonError;
    if ((choice === 'auto' || choice === 'native') && options.flacAddon !== false) {
        try {
            return nativeEngine(await loadNativeFlac(options.flacAddon));
        }
        catch (err) {
            addonError = err.message;
        }
    }
    const thread = options.thread ?? 'auto';
    let libflac;
    if (thread === 'in-process') {
        libflac = inProcessEngine();
    }
    else if (existsSync(fileURLToPath(FLAC_WORKER_URL))) {
        libflac = workerEngine(FLAC_WORKER_URL);
    }
    else if (thread === 'worker') {
        throw new FlacEncoderError(`the FLAC worker ${fileURLToPath(FLAC_WORKER_URL)} does not exist (run the build: npm run build)`);
    }
    else {
        libflac = inProcessEngine();
    }
    if (choice === 'wasm')
        return libflac;
    const program = options.flacProgram ?? 'flac';
    const version = await findFlacProgram(program);
    if (version !== undefined) {
        const scratch = options.scratchDir === false ? undefined : await findScratchDir(options.scratchDir);
        return flacCliEngine(version, libflac, program, scratch);
    }
    if (choice === 'native' || choice === 'program') {
        await libflac.close(false);
        const missing = choice === 'native'
            ? `neither libFLAC's addon (${addonError ?? 'turned off'}) nor the ${program} program (not on PATH) is there`
            : `the ${program} program was not found on PATH`;
        throw new FlacEncoderError(`upload.flacEncoder is "${choice}" but ${missing} (install it: apt-get install flac; or set upload.flacEncoder to "auto")`);
    }
    return libflac;
}
