import { appendFileSync, lstatSync, mkdirSync, renameSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAudioReference, referenceName, resolveSpoolAudio, unreferencedPath } from '../../src/audio/audio-reference.js';
import { AudioFileError } from '../../src/audio/errors.js';
import { createFlacEncoder, type FlacEncoder } from '../../src/audio/flac-encoder.js';
import { tempDir } from '../helpers/paths.js';
import { writeWav } from '../helpers/wav-writer.js';

/**
 * A spool reference to the analyzer's own file (results mode, where no link can be made):
 * the encoder reads the analyzer's file only while it is the file that was queued (inode,
 * size, modification time), and refuses it as the recording's audio otherwise.
 */
let tmp: ReturnType<typeof tempDir>;
let encoder: FlacEncoder;
beforeAll(() => {
  tmp = tempDir('station-agent-ref-');
  encoder = createFlacEncoder();
});
afterAll(async () => {
  await encoder.close();
  tmp.cleanup();
});

let n = 0;
/** An analyzer's WAV and the spool's reference to it, as Spool.take makes one. */
function referenced(): { wav: string; ref: string } {
  const dir = path.join(tmp.dir, `case${++n}`);
  mkdirSync(path.join(dir, 'input'), { recursive: true });
  mkdirSync(path.join(dir, 'spool'));
  const wav = path.join(dir, 'input', 'rec.wav');
  writeWav(wav, { format: 'pcm16', channels: 1, sampleRate: 48000, frames: 48000 });
  const st = statSync(wav);
  const ref = path.join(dir, 'spool', referenceName('0123456789abcdef.wav', { ino: st.ino, size: st.size, mtimeMs: st.mtimeMs }));
  symlinkSync(wav, ref);
  return { wav, ref };
}

const changed = (file: string, why: RegExp) => (err: unknown) => {
  expect(err).toBeInstanceOf(AudioFileError);
  expect((err as AudioFileError).reason).toBe('changed');
  expect((err as AudioFileError).file).toBe(file);
  expect((err as AudioFileError).message).toMatch(why);
  return true;
};

describe('a spool reference to the analyzer\'s file', () => {
  it('is named by the file\'s identity and encodes from the analyzer\'s file while it is that file', async () => {
    const { wav, ref } = referenced();
    expect(path.basename(ref)).toMatch(/^0123456789abcdef\.ref-\d+-96044-\d+\.wav$/);
    expect(isAudioReference(ref)).toBe(true);
    expect(isAudioReference(wav)).toBe(false);
    // The spool compaction writes the FLAC under the recording's own name.
    expect(unreferencedPath(ref)).toBe(path.join(path.dirname(ref), '0123456789abcdef.wav'));
    expect(unreferencedPath(wav)).toBe(wav);
    expect(lstatSync(ref).isSymbolicLink()).toBe(true);
    expect((await resolveSpoolAudio(ref)).path).toBe(wav);
    const flac = await encoder.encodeToMemory(ref);
    expect(flac.durationSec).toBe(1);
    // A plain spool file is read as it is.
    expect(await resolveSpoolAudio(wav)).toEqual({ path: wav, identity: null });
  });

  it('refuses the analyzer\'s file once it changed, was replaced, or is gone: nothing else is uploaded under the recording', async () => {
    const grown = referenced();
    appendFileSync(grown.wav, Buffer.alloc(100));
    await expect(encoder.encodeToMemory(grown.ref)).rejects.toSatisfy(changed(grown.wav, /its size is 96144 bytes, queued 96044/));

    // Another file of the same size and time under the name: a new inode.
    const swapped = referenced();
    const st = statSync(swapped.wav);
    const other = `${swapped.wav}.other`;
    writeWav(other, { format: 'pcm16', channels: 1, sampleRate: 48000, frames: 48000 });
    utimesSync(other, st.atime, st.mtime);
    renameSync(other, swapped.wav);
    await expect(encoder.encodeToMemory(swapped.ref)).rejects.toSatisfy(changed(swapped.wav, /another file under its name/));

    const touched = referenced();
    const later = new Date(statSync(touched.wav).mtimeMs + 5_000);
    utimesSync(touched.wav, later, later);
    await expect(resolveSpoolAudio(touched.ref)).rejects.toSatisfy(changed(touched.wav, /modified since it was queued/));

    const gone = referenced();
    rmSync(gone.wav);
    await expect(encoder.encode(gone.ref, path.join(path.dirname(gone.ref), 'x.flac'))).rejects.toSatisfy(changed(gone.wav, /it is gone/));

    // The analyzer's name made a symbolic link to another file: not followed.
    const linked = referenced();
    const elsewhere = path.join(path.dirname(linked.wav), 'elsewhere.wav');
    renameSync(linked.wav, elsewhere);
    symlinkSync(elsewhere, linked.wav);
    await expect(resolveSpoolAudio(linked.ref)).rejects.toSatisfy(changed(linked.wav, /no longer a regular file/));
  });

  it('a FLAC written under a reference-like name (a large WAV compacted) is read as the file it is', async () => {
    const file = path.join(tmp.dir, '0123456789abcdef.ref-1-2-3.flac');
    writeFileSync(file, 'not a link');
    expect(await resolveSpoolAudio(file)).toEqual({ path: file, identity: null });
  });
});
