import { createRequire } from 'node:module';
import { describe, expect, test } from 'vitest';
import { readFlacStreamInfo, sniffAudio } from '../src/audio/flac-info.js';
import { makeFlac, makeWav } from './flac-fixture.js';

describe('FLAC head reading', () => {
  test('STREAMINFO: sample rate, channels, bits, total samples', () => {
    const info = readFlacStreamInfo(makeFlac({ sampleRate: 44_100, channels: 2, samples: 123_457 }));
    expect(info).toEqual({ sampleRate: 44_100, channels: 2, bitsPerSample: 16, totalSamples: 123_457 });
  });

  test('a total above 2^32 samples (36-bit field)', () => {
    const flac = makeFlac({ samples: 10, totalSamplesInHeader: 2 ** 33 + 5 });
    expect(readFlacStreamInfo(flac)).toMatchObject({ totalSamples: 2 ** 33 + 5 });
  });

  test('an ID3v2 tag in front of the marker is skipped', () => {
    const tag = Buffer.alloc(10 + 300);
    tag.write('ID3', 0, 'latin1');
    tag[3] = 4;
    tag[9] = 300 & 0x7f;
    tag[8] = 300 >> 7;
    const flac = Buffer.concat([tag, makeFlac({ samples: 16_000 })]);
    expect(sniffAudio(flac)).toBe('flac');
    expect(readFlacStreamInfo(flac)).toMatchObject({ totalSamples: 16_000 });
  });

  test('sniffing', () => {
    expect(sniffAudio(makeWav())).toBe('wav');
    expect(sniffAudio(Buffer.from('OggS....'))).toBe('unknown');
    expect(readFlacStreamInfo(Buffer.from('RIFF'))).toBe('no fLaC marker');
  });
});

describe('the test fixture is a valid FLAC stream', () => {
  test('libFLAC decodes it to the same samples count', async () => {
    const require = createRequire(import.meta.url);
    // The asm.js build loads synchronously in Node; the wasm build needs fetch of a file URL.
    const Flac = require('libflacjs')();
    await new Promise<void>((resolve) => {
      if (Flac.isReady()) resolve();
      else Flac.on('ready', () => resolve());
    });
    const { Decoder } = require('libflacjs/lib/decoder');
    const decoder = new Decoder(Flac, { verify: true });
    expect(decoder.decode(new Uint8Array(makeFlac({ samples: 10_000, channels: 2 })))).toBe(true);
    expect(decoder.metadata).toMatchObject({ sampleRate: 16_000, channels: 2, bitsPerSample: 16, total_samples: 10_000 });
    expect(decoder.getSamples(true).length).toBe(10_000 * 2 * 2);
  });
});
