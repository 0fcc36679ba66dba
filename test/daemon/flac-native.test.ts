import { readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findFlacProgram } from '../../src/audio/flac-cli.js';
import { FLAC_BLOCK_SIZE, NO_MD5 } from '../../src/audio/flac-encode-job.js';
import { readFlacInfo } from '../../src/audio/flac-info.js';
import { loadNativeFlac } from '../../src/audio/flac-native.js';
import { decodeFlac } from '../audio/support/flac-decode.js';
import { samplesMd5, wavDataMd5 } from '../audio/support/pcm-md5.js';
import { createAgentWorld, type AgentWorld } from '../helpers/agent-world.js';
import { addRealRecording } from '../helpers/real-recording.js';

// CI installs the flac program (.ci/run); elsewhere these tests run where it is installed.
const flacVersion = await findFlacProgram();
if (process.env.CI && !flacVersion) throw new Error('CI must have the flac program (see .ci/run)');
// native means libFLAC in-process (flac-bindings) where its addon is built (CI builds it), else the program.
const addon = await loadNativeFlac().catch(() => undefined);
// CI compiles the addon from patches/' sources (.ci/run): it has the MD5 switch there.
if (process.env.CI && addon && !addon.md5Switch) throw new Error("CI's libFLAC addon must be built from patches/ (scripts/patch-dependencies.mjs)");
const engine = addon ? expect.stringMatching(/^libFLAC [\d.]+ \(flac-bindings, in-process\)$/) : `${flacVersion} (flac program)`;

/** The audio a stored FLAC decodes to (frame CRCs checked) against the WAV's own samples. */
async function expectSameAudio(flac: string, wav: string): Promise<void> {
  const decoded = await decodeFlac(flac);
  expect(decoded.errors).toEqual([]);
  expect(samplesMd5(decoded.samples, 16)).toBe(await wavDataMd5(wav));
}

let world: AgentWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe.skipIf(!flacVersion && !addon)('upload.flacEncoder native', () => {
  it('encodes a real recording with native libFLAC and the service stores a FLAC with the right STREAMINFO', async () => {
    world = await createAgentWorld({ config: { input: { minConfidence: 0.15 }, upload: { flacEncoder: 'native' } } });
    const { wav } = addRealRecording(world.inputDir);
    const original = path.join(world.root, 'original.wav');
    writeFileSync(original, readFileSync(wav));

    await world.startAgent();
    const counts = await world.waitDrained();
    expect(counts.recordings.uploaded).toBe(1);

    const encoded = world.logLines.filter((l) => l.includes('"msg":"recording encoded to FLAC"'));
    expect(encoded).toHaveLength(1);
    // Into memory, at upload time: the spool never held a FLAC.
    expect(JSON.parse(encoded[0])).toMatchObject({ engine, into: 'memory' });

    const [sc, ...more] = await world.allSoundscapes();
    expect(more).toHaveLength(0);
    expect(sc.sampleRate).toBe(16_000);
    expect(sc.duration).toBe(10);
    const media = await fetch(sc.url);
    expect(media.status).toBe(200);
    const stored = path.join(world.root, 'stored.flac');
    writeFileSync(stored, Buffer.from(await media.arrayBuffer()));
    const info = await readFlacInfo(stored);
    expect(info).toMatchObject({ sampleRate: 16_000, totalSamples: 160_000, channels: 1 });
    // The daemon's encodes leave the MD5 unset where the addon can (a third of its CPU):
    // the program computes it still. Either way, the frames hold the recording's samples.
    if (addon?.md5Switch) expect(info.md5).toBe(NO_MD5);
    else expect(info.md5).not.toBe(NO_MD5);
    await expectSameAudio(stored, original);
  });
});

/**
 * `upload.flacCompressionLevel` reaches libFLAC through every encoder: the service's copy
 * tells the level by its size (level 0 keeps no LPC predictors: larger), and every encoder
 * cuts FLAC_BLOCK_SIZE-sample blocks whatever the level (libFLAC's levels would cut 1,152
 * at 0 and 4,096 at 5).
 */
describe('upload.flacCompressionLevel', () => {
  const engines = [
    ...(addon || flacVersion ? (['native'] as const) : []),
    ...(flacVersion ? (['program'] as const) : []),
    'wasm' as const,
  ];
  const storedFlac = async (flacEncoder: string, level: number | undefined) => {
    world = await createAgentWorld({
      config: { input: { minConfidence: 0.15 }, upload: { flacEncoder, ...(level === undefined ? {} : { flacCompressionLevel: level }) } },
    });
    addRealRecording(world.inputDir);
    await world.startAgent();
    expect((await world.waitDrained()).recordings.uploaded).toBe(1);
    const [sc] = await world.allSoundscapes();
    const stored = path.join(world.root, 'stored.flac');
    writeFileSync(stored, Buffer.from(await (await fetch(sc.url)).arrayBuffer()));
    const decoded = await decodeFlac(stored);
    expect(decoded.errors).toEqual([]);
    const result = { info: await readFlacInfo(stored), bytes: statSync(stored).size, audio: samplesMd5(decoded.samples, 16) };
    await world.close();
    world = undefined;
    return result;
  };

  it.each(engines)('%s: 0 by default, 5 when set (a smaller file), both in FLAC_BLOCK_SIZE-sample blocks', async (flacEncoder) => {
    const byDefault = await storedFlac(flacEncoder, undefined);
    expect(byDefault.info).toMatchObject({ minBlockSize: FLAC_BLOCK_SIZE, maxBlockSize: FLAC_BLOCK_SIZE, totalSamples: 160_000 });
    const level5 = await storedFlac(flacEncoder, 5);
    expect(level5.info).toMatchObject({ minBlockSize: FLAC_BLOCK_SIZE, maxBlockSize: FLAC_BLOCK_SIZE, totalSamples: 160_000 });
    expect(level5.bytes).toBeLessThan(byDefault.bytes);
    // Lossless either way: the same audio.
    expect(level5.audio).toBe(byDefault.audio);
    // Two agents and services one after the other: 20 s each under a load average of 12.
  }, 90_000);
});
