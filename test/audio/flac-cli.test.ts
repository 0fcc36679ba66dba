import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FlacEncoderError } from '../../src/audio/errors.js';
import { findFlacProgram } from '../../src/audio/flac-cli.js';
import { createFlacEncoder } from '../../src/audio/flac-encoder.js';
import { readFlacInfo } from '../../src/audio/flac-info.js';
import { tempDir } from '../helpers/paths.js';
import { writeWav } from '../helpers/wav-writer.js';
import { decodeFlac } from './support/flac-decode.js';
import { REAL_WAVS } from './support/real-wavs.js';
import { until } from '../helpers/until.js';

// CI installs the flac program (.ci/run), so both encoders are covered there.
const flacVersion = await findFlacProgram();
if (process.env.CI && !flacVersion) throw new Error('CI must have the flac program (see .ci/run)');

let tmp: ReturnType<typeof tempDir>;
beforeAll(() => {
  tmp = tempDir('station-agent-flac-cli-');
});
afterAll(() => tmp.cleanup());

describe.skipIf(!flacVersion)('the flac program and libflacjs', () => {
  it.each(REAL_WAVS)('encode %s to the same audio and STREAMINFO', async (wav) => {
    const native = createFlacEncoder({ engine: 'program' });
    const wasm = createFlacEncoder({ engine: 'wasm' });
    const name = path.basename(wav, '.wav');
    try {
      const a = await native.encode(wav, path.join(tmp.dir, 'native', `${name}.flac`));
      const b = await wasm.encode(wav, path.join(tmp.dir, 'wasm', `${name}.flac`));
      expect(a.engine).toBe(`${flacVersion} (flac program)`);
      expect(b.engine).toMatch(/^libflacjs /);
      const pick = ({ sampleRate, channels, bitsPerSample, totalSamples, durationSec, md5 }: typeof a) => ({ sampleRate, channels, bitsPerSample, totalSamples, durationSec, md5 });
      expect(pick(a)).toEqual(pick(b));
      // What the service reads: the files' own STREAMINFO (frame sizes may differ between libFLAC versions).
      const [fa, fb] = await Promise.all([readFlacInfo(path.join(tmp.dir, 'native', `${name}.flac`)), readFlacInfo(path.join(tmp.dir, 'wasm', `${name}.flac`))]);
      const stream = ({ sampleRate, channels, bitsPerSample, totalSamples, md5 }: typeof fa) => ({ sampleRate, channels, bitsPerSample, totalSamples, md5 });
      expect(stream(fa)).toEqual(stream(fb));
      expect(fa.md5).not.toBe('0'.repeat(32));
      // And the samples themselves, decoded.
      const [da, db] = await Promise.all([decodeFlac(path.join(tmp.dir, 'native', `${name}.flac`)), decodeFlac(path.join(tmp.dir, 'wasm', `${name}.flac`))]);
      expect(da.errors).toEqual([]);
      expect(da.md5Ok).toBe(true);
      expect(Buffer.from(da.samples.buffer).equals(Buffer.from(db.samples.buffer))).toBe(true);
    } finally {
      await Promise.all([native.close(), wasm.close()]);
    }
  });
});

describe("engine: 'program'", () => {
  it('fails each job with a FlacEncoderError saying how to install flac when the program is missing, and looks again for the next', async () => {
    const wav = path.join(tmp.dir, 'missing.wav');
    writeWav(wav, { frames: 1000 });
    const program = path.join(tmp.dir, 'flac-installed-later');
    const own = createFlacEncoder({ engine: 'program', flacProgram: program });
    const first = own.encode(wav, path.join(tmp.dir, 'missing.flac'));
    await expect(first).rejects.toBeInstanceOf(FlacEncoderError);
    await expect(first).rejects.toThrow(/not found on PATH \(install it: apt-get install flac/);
    // "Installing" the program (a stand-in that fails loudly) is seen by the next job.
    writeFileSync(program, '#!/bin/sh\nif [ "$1" = "--version" ]; then echo "flac 9.9"; exit 0; fi\necho "boom" >&2; exit 3\n');
    chmodSync(program, 0o755);
    await expect(own.encode(wav, path.join(tmp.dir, 'missing.flac'))).rejects.toThrow(/flac failed on .*missing\.wav: boom/);
    expect(existsSync(path.join(tmp.dir, 'missing.flac.part'))).toBe(false);
    await own.close();
  });

  it('close({ force: true }) kills a running flac program and removes its .part', async () => {
    const wav = path.join(tmp.dir, 'slow.wav');
    writeWav(wav, { frames: 1000 });
    const pidFile = path.join(tmp.dir, 'slow.pid');
    const program = path.join(tmp.dir, 'slow-flac');
    // A stand-in that starts its output, records its pid and then never finishes.
    writeFileSync(
      program,
      `#!/bin/sh
if [ "$1" = "--version" ]; then echo "flac 1.4.3"; exit 0; fi
while [ $# -gt 0 ]; do if [ "$1" = "-o" ]; then out="$2"; fi; shift; done
: > "$out"
echo $$ > '${pidFile}'
exec sleep 600
`,
    );
    chmodSync(program, 0o755);
    const own = createFlacEncoder({ engine: 'program', flacProgram: program });
    const dest = path.join(tmp.dir, 'slow.flac');
    const job = own.encode(wav, dest);
    job.catch(() => undefined);
    await until('the pid file', () => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '');
    const pid = Number(readFileSync(pidFile, 'utf8'));
    await own.close({ force: true });
    await expect(job).rejects.toThrow(/flac failed on .*slow\.wav: killed by SIGTERM/);
    expect(existsSync(`${dest}.part`)).toBe(false);
    expect(existsSync(dest)).toBe(false);
    expect(alive(pid)).toBe(false);
  });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

