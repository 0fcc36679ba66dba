import { describe, expect, it } from 'vitest';
import { checkFlacEncoder } from '../../src/audio/flac-check.js';

describe('checkFlacEncoder', () => {
  it('encodes a generated tone and checks its STREAMINFO', async () => {
    const check = await checkFlacEncoder();
    expect(check).toEqual({
      ok: true,
      engine: expect.stringMatching(/^libflacjs release\.(wasm|asmjs) \(in-process\)$/),
      detail: expect.stringMatching(/^encoded 2000 samples to \d+ bytes; STREAMINFO MD5 matches$/),
    });
  });

  it('reports a failure instead of throwing', async () => {
    // Under vitest there is no compiled worker, so insisting on one fails.
    const check = await checkFlacEncoder({ thread: 'worker' });
    expect(check.ok).toBe(false);
    expect(check.detail).toMatch(/flac-worker\.js does not exist/);
  });
});

describe('options', () => {
  it('a compression level outside 0-8 is a RangeError', async () => {
    const { createFlacEncoder } = await import('../../src/audio/flac-encoder.js');
    expect(() => createFlacEncoder({ compressionLevel: 9 as never })).toThrow(RangeError);
    const encoder = createFlacEncoder();
    await expect(encoder.encode('a.wav', 'a.flac', { compressionLevel: -1 as never })).rejects.toThrow(/0 to 8, got -1/);
    await encoder.close();
  });
});
