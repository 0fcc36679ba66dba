import { copyFileSync, existsSync, lstatSync, readdirSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { NEAR_SPOOL_NAME } from '../../src/ingest/spool.js';
import { buildCli, runCli } from '../helpers/cli.js';
import { realFixture } from '../helpers/paths.js';
import { cardSpool, closeSandboxStations, doctorAudio, namespaces, sandboxStation as station, statusTaken, taken } from '../helpers/sandbox-station.js';
import { until } from '../helpers/until.js';
import { planBacklog, startDaysAgo, writeBacklog } from '../reliability/support/backlog.js';
import { SEED, seededRandom } from '../reliability/support/soak.js';

/**
 * The spool under the installed unit's mounts, without systemd: the agent as a process in a
 * mount namespace (`unshare -rm`) where dataDir is bind-mounted onto itself, as the unit's
 * `StateDirectory=` under `ProtectSystem=strict` does. The input folder and dataDir are on
 * one file system (one `st_dev`), yet a link between them fails with EXDEV across the mount
 * point. With the input folder writable to the agent (bind-mounted read-write onto itself,
 * as `ReadWritePaths=` does) the audio is linked in its near spool: no byte of audio written
 * to dataDir. With it read-only (the unit without `ReadWritePaths=`), results mode holds a
 * reference to the analyzer's own file instead (nothing copied), and analyzerpi, whose
 * analyzer deletes its WAVs, copies; so does an input folder on another file system: the
 * daemon's runtime snapshot, and `doctor` and `status` that read it, say which happened and
 * how many bytes.
 */

afterEach(closeSandboxStations);
beforeAll(() => buildCli(), 600_000);

const RECORDINGS = 3;

describe.skipIf(!namespaces.ok)('the spool under the unit\'s mounts (dataDir bind-mounted onto itself, one file system)', () => {
  it('results: links every WAV in the near spool when the unit may write input.dir; nothing written to dataDir, and doctor and status say so', async () => {
    const backlog = planBacklog({ count: RECORDINGS, startMs: startDaysAgo(1), random: seededRandom(SEED) });
    const s = await station('rw', 'results', (dir) => writeBacklog(dir, backlog));
    // One file system outside the namespace: what the spool's st_dev comparison saw.
    expect(statSync(s.inputDir).dev).toBe(statSync(s.dataDir).dev);
    const audio = await taken(s, RECORDINGS, 'linked');
    expect(audio).toMatchObject({ linked: RECORDINGS, copied: 0, copiedBytes: 0, nearDir: path.join(s.inputDir, NEAR_SPOOL_NAME) });
    expect(cardSpool(s.dataDir)).toEqual([]);
    for (const rec of backlog) expect(statSync(path.join(s.inputDir, `${rec.base}.wav`)).nlink).toBe(2);
    expect(readdirSync(path.join(s.inputDir, NEAR_SPOOL_NAME)).filter((f) => f !== 'incoming')).toHaveLength(RECORDINGS);

    const check = await doctorAudio(s);
    expect(check.status, check.detail).toBe('pass');
    expect(check.detail).toMatch(new RegExp(`^the running daemon \\(pid \\d+\\) hard-linked all ${RECORDINGS} audio files it took since its start .*: no audio written to the card$`));
    expect(check.data).toMatchObject({ measured: 'daemon', linked: RECORDINGS, copied: 0 });
    expect(await statusTaken(s)).toMatchObject({ linked: RECORDINGS, copied: 0, copiedBytes: 0 });
  }, 180_000);

  it('analyzerpi: links the WAV on sight in the near spool, before the analyzer deletes it; nothing written to dataDir', async () => {
    const s = await station('rw', 'analyzerpi');
    const name = '2024-02-24-birdnet-16:19:37.wav';
    const wav = path.join(s.inputDir, name);
    copyFileSync(realFixture('birdnet-pi_88985a3a', 'Pica pica_30s.wav'), wav);
    await until('the WAV linked on sight', () => statSync(wav).nlink === 2, 30_000, () => s.agent.lines.slice(-15).join('\n'));
    writeFileSync(
      `${wav}.json`,
      JSON.stringify({ file_name: name, timestamp: '2024-02-24T16:19:37+01:00', delay: 0, detections: [{ start: 0, common_name: 'Eurasian Magpie', confidence: 0.9 }] }),
    );
    const audio = await taken(s, 1, 'linked');
    expect(audio).toMatchObject({ copied: 0, copiedBytes: 0 });
    rmSync(wav); // the analyzer cleans up: the agent's link keeps the audio
    const near = path.join(s.inputDir, NEAR_SPOOL_NAME);
    await until('the recording queued from the near spool', () => readdirSync(near).some((f) => f.endsWith('.wav')), 30_000, () => s.agent.lines.slice(-15).join('\n'));
    expect(cardSpool(s.dataDir)).toEqual([]);
    expect(readdirSync(path.join(s.dataDir, 'spool', 'incoming'))).toEqual([]);
    expect((await doctorAudio(s)).status).toBe('pass');
  }, 180_000);

  it('results, where the unit may not write input.dir: holds a reference to each analyzer\'s WAV, nothing copied, and doctor and status say so', async () => {
    const backlog = planBacklog({ count: RECORDINGS, startMs: startDaysAgo(1), random: seededRandom(SEED) });
    const s = await station('ro', 'results', (dir) => writeBacklog(dir, backlog));
    const audio = await taken(s, RECORDINGS, 'referenced');
    expect(audio).toMatchObject({ linked: 0, referenced: RECORDINGS, copied: 0, copiedBytes: 0, nearDir: null });
    // The spool holds symbolic links to the analyzer's files: no audio byte in dataDir.
    const spooled = cardSpool(s.dataDir);
    expect(spooled).toHaveLength(RECORDINGS);
    for (const f of spooled) {
      expect(lstatSync(path.join(s.dataDir, 'spool', f)).isSymbolicLink(), f).toBe(true);
      expect(realpathSync(path.join(s.dataDir, 'spool', f)).startsWith(s.inputDir + path.sep), f).toBe(true);
    }
    for (const rec of backlog) expect(statSync(path.join(s.inputDir, `${rec.base}.wav`)).nlink).toBe(1);

    const check = await doctorAudio(s);
    expect(check.status, check.detail).toBe('pass');
    expect(check.detail).toMatch(new RegExp(`^the running daemon \\(pid \\d+\\) took ${RECORDINGS} audio files since its start without a copy: ${RECORDINGS} held by reference to the analyzer's own file`));
    expect(check.data).toMatchObject({ measured: 'daemon', referenced: RECORDINGS, copied: 0 });
    expect(await statusTaken(s)).toMatchObject({ linked: 0, referenced: RECORDINGS, copied: 0, copiedBytes: 0 });
    const text = (await runCli(['status', '--offline', '--config', s.configPath])).stdout;
    expect(text).toMatch(new RegExp(`audio taken:?\\s+since the daemon's start: 0 hard-linked, ${RECORDINGS} held by reference, none copied`));
  }, 180_000);

  it('analyzerpi, where the unit may not write input.dir: copies (the analyzer deletes its WAVs), and says so with the bytes and what to change', async () => {
    const s = await station('ro', 'analyzerpi');
    const name = '2024-02-24-birdnet-16:19:37.wav';
    const wav = path.join(s.inputDir, name);
    copyFileSync(realFixture('birdnet-pi_88985a3a', 'Pica pica_30s.wav'), wav);
    const bytes = statSync(wav).size;
    writeFileSync(
      `${wav}.json`,
      JSON.stringify({ file_name: name, timestamp: '2024-02-24T16:19:37+01:00', delay: 0, detections: [{ start: 0, common_name: 'Eurasian Magpie', confidence: 0.9 }] }),
    );
    const audio = await taken(s, 1, 'copied');
    expect(audio).toMatchObject({ linked: 0, referenced: 0, copied: 1, copiedBytes: bytes, nearDir: null });
    expect(audio.lastCopyWhy).toMatch(/^EXDEV: .* cannot be hard-linked into .*; the near spool .* cannot be made there \(EROFS: the agent needs input\.dir writable/);
    const check = await doctorAudio(s);
    expect(check.status, check.detail).toBe('warn');
    expect(check.detail).toMatch(/^the running daemon \(pid \d+\) copied 1 of 1 audio files onto the card since its start/);
    expect(check.hint).toContain(`ReadWritePaths=-${s.inputDir}`);
    expect(check.data).toMatchObject({ measured: 'daemon', copied: 1, copiedBytes: bytes });
    expect(await statusTaken(s)).toMatchObject({ linked: 0, copied: 1, copiedBytes: bytes });
    const text = (await runCli(['status', '--offline', '--config', s.configPath])).stdout;
    expect(text).toMatch(/audio taken:?\s+since the daemon's start: 0 hard-linked, 1 copied onto the card/);
  }, 180_000);

  const otherFs = existsSync('/dev/shm') && statSync('/dev/shm').dev !== statSync(process.env.TMPDIR ?? '/tmp').dev;
  it.skipIf(!otherFs)('copies from an input folder on another file system (input.ramDiskAudio copy), and says so', async () => {
    const backlog = planBacklog({ count: RECORDINGS, startMs: startDaysAgo(1), random: seededRandom(SEED) });
    const s = await station('apart', 'results', (dir) => writeBacklog(dir, backlog));
    const audio = await taken(s, RECORDINGS, 'copied');
    expect(audio).toMatchObject({ linked: 0, copied: RECORDINGS, nearDir: null });
    expect(audio.lastCopyWhy).toMatch(/^EXDEV: .* \(another file system, or a mount apart in this mount namespace\)$/);
    const check = await doctorAudio(s);
    expect(check.status).toBe('warn');
    expect(check.hint).toMatch(/set input\.ramDiskAudio to keep/);
  }, 180_000);
});
