import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { encode } from 'node-wav';
import { errorMessage } from '../errors.js';
import { createFlacEncoder } from './flac-encoder.js';
import { readFlacInfo } from './flac-info.js';
const SAMPLE_RATE = 8000;
const FRAMES = 2000;
function probeWav() {
    const tone = Float32Array.from({ length: FRAMES }, (_, i) => 0.37 * Math.sin((2 * Math.PI * 440 * i) / SAMPLE_RATE));
    const wav = encode([tone], { sampleRate: SAMPLE_RATE, bitDepth: 16 });
    return { wav, md5: createHash('md5').update(wav.subarray(44)).digest('hex') };
}
export async function checkFlacEncoder(options = {}) {
    const dir = await mkdtemp(path.join(tmpdir(), 'station-agent-flac-check-'));
    const encoder = createFlacEncoder(options);
    let engine = options.engine === 'native' ? 'native libFLAC' : options.engine === 'program' ? 'the flac program' : 'libflacjs';
    try {
        const { wav, md5 } = probeWav();
        const src = path.join(dir, 'probe.wav');
        const dest = path.join(dir, 'probe.flac');
        await writeFile(src, wav);
        const result = await encoder.encode(src, dest);
        engine = result.engine;
        const info = await readFlacInfo(dest);
        if (info.totalSamples !== FRAMES || info.sampleRate !== SAMPLE_RATE) {
            return { ok: false, engine, detail: `STREAMINFO says ${info.totalSamples} samples at ${info.sampleRate} Hz, expected ${FRAMES} at ${SAMPLE_RATE} Hz` };
        }
        if (info.md5 !== md5) {
            return { ok: false, engine, detail: `STREAMINFO MD5 ${info.md5} does not match the audio's ${md5}` };
        }
        return { ok: true, engine, detail: `encoded ${FRAMES} samples to ${info.bytes} bytes; STREAMINFO MD5 matches` };
    }
    catch (err) {
        return { ok: false, engine, detail: errorMessage(err) };
    }
    finally {
        await encoder.close().catch(() => undefined);
        await rm(dir, { recursive: true, force: true });
    }
}
