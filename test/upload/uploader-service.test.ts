import { copyFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createServiceClient } from '../../src/api/index.js';
import { enqueueRecording, getItem, listItems } from '../../src/queue/index.js';
import { createAgentWorld, TOKEN, type AgentWorld } from '../helpers/agent-world.js';
import { holdingProxy } from '../helpers/holding-proxy.js';
import { realFixture } from '../helpers/paths.js';
import { until } from '../helpers/until.js';

let world: AgentWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});


/** A results-format recording with the given CSV rows, its WAV from the real fixtures. */
function dropRecording(w: AgentWorld, base: string, rows: string[], endIso = '2025-06-01T10:00:10.000Z', audio = true): void {
  if (audio) {
    const wav = path.join(w.inputDir, `${base}.wav`);
    copyFileSync(realFixture('birdnet-analyzer_ea464544_2022-03-02', 'soundscape.wav'), wav);
    const end = new Date(endIso);
    utimesSync(wav, end, end);
  }
  writeFileSync(
    path.join(w.inputDir, `${base}.BirdNET.results.csv`),
    // Every line ends with its line end, as the analyzer writes it (a last line without one is still being written).
    `${['Start (s),End (s),Scientific name,Common name,Confidence', ...rows].join('\n')}\n`,
  );
}

/** `n` detections of one recording without audio, all due at once (dedupe keys `${prefix}-0`, ...). */
function enqueueMagpies(queue: Parameters<typeof enqueueRecording>[0], prefix: string, n: number): void {
  enqueueRecording(queue, {
    recording: null,
    detections: Array.from({ length: n }, (_, i) => ({
      dedupeKey: `${prefix}-${i}`,
      timestamp: '2025-06-02T12:00:00.000+02:00',
      startS: i * 3,
      endS: i * 3 + 3,
      scientificName: 'Pica pica',
      commonName: 'Eurasian Magpie',
      confidence: 0.9,
      lat: null,
      lon: null,
    })),
  });
}

/**
 * An uploader of its own over the daemon's queue (4 slots), with `onUploaded` called for
 * each "detection uploaded" line it logs (the item's id).
 */
async function detectionUploader(
  queue: Parameters<typeof enqueueRecording>[0],
  client: AgentWorld['client'],
  probeIntervalMs: number,
  onUploaded: (item: number) => void,
) {
  const { Uploader } = await import('../../src/upload/uploader.js');
  const { bindUploadQueue } = await import('../../src/upload/upload-queue-sqlite.js');
  const pino = (await import('pino')).default;
  const log = pino({ level: 'info' }, { write: (line: string) => {
    const entry = JSON.parse(line) as { msg: string; item: number };
    if (entry.msg === 'detection uploaded') onUploaded(entry.item);
  } });
  return new Uploader(bindUploadQueue(queue), client, log, { concurrency: 4, backoff: { baseMs: 100, maxMs: 1000 }, probeIntervalMs, noSoundscapeAfterMs: 0 });
}

describe('uploader against the local service', () => {
  it('pauses on a rejected token without dropping anything, probes, and resumes when the token is accepted', async () => {
    world = await createAgentWorld();
    const station = world.emulator.store.stations.byToken(TOKEN)!;
    world.emulator.store.stations.update(station.id, { active: false });
    dropRecording(world, 'a', ['0,3.0,Phylloscopus collybita,Common Chiffchaff,0.9', '3.0,6.0,Picus viridis,Eurasian Green Woodpecker,0.8']);
    const daemon = await world.startAgent();

    await until('the token pause', () => daemon.uploader.status().paused.some((p) => p.reason === 'token-rejected'));
    const paused = world.counts();
    expect(paused.recordings.failed + paused.detections.failed + paused.recordings.dropped + paused.detections.dropped).toBe(0);
    expect(paused.recordings.uploaded).toBe(0);
    expect(world.logLines.some((l) => l.includes('uploads paused') && l.includes('token'))).toBe(true);

    world.emulator.store.stations.update(station.id, { active: true });
    const counts = await world.waitDrained();
    expect(counts.recordings.uploaded).toBe(1);
    expect(counts.detections.uploaded).toBe(2);
    expect(daemon.uploader.status().paused).toEqual([]);
    expect(await world.allDetections()).toHaveLength(2);
    expect(await world.allSoundscapes()).toHaveLength(1);
  });

  it('fails a recording whose spooled WAV cannot be encoded before any request: no soundscape reaches the service, its detections go without', async () => {
    world = await createAgentWorld();
    const station = world.emulator.store.stations.byToken(TOKEN)!;
    // Held by a refused token while the spool file is spoiled, so the encode step meets the spoiled one.
    world.emulator.store.stations.update(station.id, { active: false });
    dropRecording(world, 'spoiled', ['0,3.0,Phylloscopus collybita,Common Chiffchaff,0.9']);
    const daemon = await world.startAgent();
    await until('the token pause', () => daemon.uploader.status().paused.some((p) => p.reason === 'token-rejected'));
    const rec = await until('the recording queued and waiting', () => {
      const r = getItem(daemon.queue, 'recording', 1);
      return r?.state === 'pending' ? r : undefined;
    });
    expect(rec.audioFormat).toBe('wav');
    // A new file under the spool name (the spool's link shares the analyzer's inode: leave that one alone).
    rmSync(rec.spoolPath!);
    writeFileSync(rec.spoolPath!, 'RIFF and then nothing a WAV needs');

    world.emulator.store.stations.update(station.id, { active: true });
    const counts = await world.waitDrained();
    expect(counts.recordings.failed).toBe(1);
    expect(getItem(daemon.queue, 'recording', rec.id)).toMatchObject({ state: 'failed', previousState: 'pending', lastErrorCode: 'ERR_AUDIO_INVALID' });
    expect(counts.detections.uploaded).toBe(1);
    expect(await world.allSoundscapes()).toHaveLength(0);
    const [d] = await world.allDetections();
    expect(d.soundscape ?? null).toBeNull();
    expect(world.logLines.some((l) => l.includes('recording not uploadable'))).toBe(true);
  });

  it('fails a detection the service refuses (422 unknown species) with its message; the others go on', async () => {
    world = await createAgentWorld();
    dropRecording(world, 'b', [
      '0,3.0,Phylloscopus collybita,Common Chiffchaff,0.9',
      '3.0,6.0,Imaginaria fictiva,Fictional Warbler,0.8',
      '6.0,9.0,Circus aeruginosus,Eurasian Marsh-Harrier,0.7',
    ]);
    await world.startAgent();
    const counts = await world.waitDrained();
    expect(counts.detections.uploaded).toBe(2);
    expect(counts.detections.failed).toBe(1);
    const failed = listItems(world.daemon!.queue, { state: 'failed', kind: 'detection', limit: 10 }).items;
    expect(failed).toHaveLength(1);
    const item = getItem(world.daemon!.queue, 'detection', failed[0].id)!;
    expect(item.scientificName).toBe('Imaginaria fictiva');
    expect(item.lastErrorCode).toBe('HTTP_422');
    expect(item.lastError).toContain('must exist');
    const names = (await world.allDetections()).map((d) => d.species.scientificName).sort();
    expect(names).toEqual(['Circus aeruginosus', 'Phylloscopus collybita']);
  });

  it('pauses soundscape uploads when the service refuses the format (415), keeping the recording', async () => {
    world = await createAgentWorld();
    const daemon = await world.startAgent();
    // Audio the service refuses: WAV bytes queued as if they were FLAC.
    const spoolFile = path.join(world.dataDir, 'spool', 'refused.flac');
    copyFileSync(realFixture('birdnet-analyzer_ea464544_2022-03-02', 'soundscape.wav'), spoolFile);
    enqueueRecording(daemon.queue, {
      recording: {
        sourceKey: 'refused|2025-06-01T10:00:00.000Z',
        sourcePath: spoolFile,
        spoolPath: spoolFile,
        audioFormat: 'flac',
        timestamp: '2025-06-01T12:00:00.000+02:00',
        timeSource: 'filename',
        durationS: 10,
        sampleRate: 16_000,
        filesize: 1000,
      },
      detections: [],
    });
    daemon.uploader.notify();
    await until('the soundscape pause', () => daemon.uploader.status().paused.some((p) => p.reason === 'soundscape-format-rejected'));
    const counts = world.counts();
    expect(counts.recordings.failed).toBe(0);
    expect(counts.recordings.pending + counts.recordings.sending).toBe(1);
    expect(world.logLines.some((l) => l.includes('soundscape format') && l.includes('415'))).toBe(true);
  });

  it('holds every upload while the clock must be synchronised and is not known to be', async () => {
    // A detection without audio, due at once: nothing but the hold keeps it back.
    world = await createAgentWorld({ config: { clock: { requireSync: 'always' }, upload: { noSoundscapeAfterSec: 0 } } });
    // Its name gives its start (there is no audio to read it from).
    dropRecording(world, 'ST_20250601_100000', ['0,3.0,Phylloscopus collybita,Common Chiffchaff,0.9'], undefined, false);
    const daemon = await world.startAgent();
    // This machine has no systemd-timesyncd: the clock state is unknown, and `always` trusts only a synchronised clock.
    await until('the recording queued', () => Object.values(world!.counts().detections).some((n) => n > 0));
    // A pass of the uploader's loop (synchronous, run as soon as it is woken) after the detection
    // was queued: unheld, it claims it (`sending`) before the next turn of the event loop.
    daemon.uploader.notify();
    await new Promise((r) => setImmediate(r));
    expect(world.counts().detections).toMatchObject({ pending: 1, sending: 0, uploaded: 0 });
    expect(await world.allDetections()).toHaveLength(0);
    expect(daemon.uploader.status().paused.map((p) => p.reason)).toContain('clock-unsynchronized');
  });
});

describe('uploader fairness', () => {
  it('does not hold back the detections of a new recording behind a backlog of soundscapes', async () => {
    const { makeFlac } = await import('../../emulator/test/flac-fixture.js');
    world = await createAgentWorld({ config: { upload: { concurrency: 2 } } });
    const daemon = await world.startAgent();
    await daemon.uploader.stop();
    const flac = makeFlac();
    const inputs = Array.from({ length: 30 }, (_, i) => {
      const file = path.join(world!.dataDir, 'spool', `backlog-${i}.flac`);
      writeFileSync(file, flac);
      const start = new Date(Date.parse('2025-06-01T08:00:00.000Z') + i * 15_000);
      return {
        recording: {
          sourceKey: `backlog-${i}|${start.toISOString()}`,
          sourcePath: file,
          spoolPath: file,
          audioFormat: 'flac' as const,
          timestamp: start.toISOString().replace('Z', '+00:00'),
          timeSource: 'filename' as const,
          durationS: 1,
          sampleRate: 16_000,
          filesize: flac.length,
        },
        detections: [],
      };
    });
    for (const input of inputs) enqueueRecording(daemon.queue, input);
    // Today's detection (its recording had no audio): due at once.
    enqueueRecording(daemon.queue, {
      recording: null,
      detections: [
        { dedupeKey: 'today', timestamp: '2025-06-02T12:00:00.000+02:00', startS: 0, endS: 3, scientificName: 'Pica pica', commonName: 'Eurasian Magpie', confidence: 0.9, lat: null, lon: null },
      ],
    });
    const { Uploader } = await import('../../src/upload/uploader.js');
    const { bindUploadQueue } = await import('../../src/upload/upload-queue-sqlite.js');
    const pino = (await import('pino')).default;
    const uploader = new Uploader(bindUploadQueue(daemon.queue), world.client, pino({ level: 'silent' }), {
      concurrency: 2,
      backoff: { baseMs: 100, maxMs: 1000 },
      probeIntervalMs: 1000,
      noSoundscapeAfterMs: 0,
    });
    let soundscapesAtDetection = -1;
    world.emulator.events.on('detection', () => {
      soundscapesAtDetection = (world!.emulator.store.db.prepare('SELECT COUNT(*) AS n FROM soundscapes').get() as { n: number }).n;
    });
    uploader.start();
    await until('the detection', () => soundscapesAtDetection >= 0);
    await uploader.stop();
    // It went out with the first slots, not after the 30 soundscapes.
    expect(soundscapesAtDetection).toBeLessThan(5);
  });
});

describe('uploader stop', () => {
  it('lets the requests in flight finish before it stops, so a restart leaves nothing to reconcile', async () => {
    // Every POST takes 800 ms at the service; the request timeout (and so the stop grace) is 5 s.
    world = await createAgentWorld({ emulator: { faults: { latencyMs: 800 } } });
    dropRecording(world, 'g', ['0,3.0,Phylloscopus collybita,Common Chiffchaff,0.9']);
    const daemon = await world.startAgent();
    await until('a request in flight', () => daemon.uploader.status().inFlight > 0);
    await world.stopAgent();
    const counts = world.counts();
    expect(counts.recordings.unknown + counts.detections.unknown).toBe(0);
    expect(counts.recordings.sending + counts.detections.sending).toBe(0);
    expect(counts.recordings.uploaded).toBe(1);
  });
});

describe('uploader group commit', () => {
  it('records outcomes with the next claims in shared commits, and reports each only once another connection sees it', async () => {
    const Database = (await import('better-sqlite3')).default;
    world = await createAgentWorld({ emulator: { faults: { latencyMs: 20 } } });
    const daemon = await world.startAgent();
    await daemon.uploader.stop();
    const N = 40;
    enqueueMagpies(daemon.queue, 'gc', N);
    // What a crash would leave: another connection reads only what is committed.
    const other = new Database(path.join(world.dataDir, 'queue.db'), { readonly: true });
    const committedState = other.prepare('SELECT state FROM detections WHERE id = ?').pluck();
    const notDurableWhenReported: number[] = [];
    let uploaded = 0;
    const uploader = await detectionUploader(daemon.queue, world.client, 1000, (item) => {
      uploaded++;
      if (committedState.get(item) !== 'uploaded') notDurableWhenReported.push(item);
    });
    uploader.start();
    try {
      await until('every detection uploaded', () => uploaded === N, 60_000);
    } finally {
      await uploader.stop();
      other.close();
    }
    expect(notDurableWhenReported).toEqual([]);
    const { commits, outcomes } = uploader.commitStats;
    expect(outcomes).toBe(N);
    // Per item a claim and an outcome: two commits each, written one by one. Shared, at
    // most one per answer plus the first claim (fewer when answers arrive together).
    expect(commits).toBeLessThanOrEqual(N + 1);
    expect((await world.allDetections()).length).toBe(N);
  });
});

describe('uploader slots during a slow answer', () => {
  it('commits the outcomes of quick answers at the deadline while a slow one is in flight, and fills the slots they freed', async () => {
    world = await createAgentWorld();
    const daemon = await world.startAgent();
    await daemon.uploader.stop();
    const N = 24;
    enqueueMagpies(daemon.queue, 'slow', N);
    // The first detection's POST is held at a proxy until the others are all through.
    const proxy = await holdingProxy(world.emulator.url, (req) => req.method === 'POST' && (req.url ?? '').includes('detections'));
    const client = createServiceClient({ baseUrl: proxy.url, token: TOKEN });
    let uploaded = 0;
    // No pass on the idle timer within the test: only answers and the outcomes' deadline
    // (OUTCOME_WAIT_MS) move the uploader; before, it waited for the held answer.
    const uploader = await detectionUploader(daemon.queue, client, 600_000, () => uploaded++);
    uploader.start();
    try {
      await proxy.holding;
      await until('every other detection uploaded while one answer is held', () => uploaded === N - 1, 30_000);
      expect(uploader.status().inFlight).toBeGreaterThanOrEqual(1);
      proxy.release();
      await until('every detection uploaded', () => uploaded === N, 30_000);
    } finally {
      await uploader.stop();
      await client.close();
      await proxy.close();
    }
    expect(await world.allDetections()).toHaveLength(N);
  });
});

describe('uploader circuit breaker', () => {
  it('gives the probe back when the queue fails to claim in half-open, and resumes once the service is back', async () => {
    world = await createAgentWorld();
    const daemon = await world.startAgent();
    await daemon.uploader.stop();
    const N = 3;
    enqueueMagpies(daemon.queue, 'cb', N);
    world.emulator.setFaults('5xx=1');
    const { Uploader } = await import('../../src/upload/uploader.js');
    const { bindUploadQueue } = await import('../../src/upload/upload-queue-sqlite.js');
    const pino = (await import('pino')).default;
    const bound = bindUploadQueue(daemon.queue);
    // The claim that follows the circuit's opening is the half-open probe's (an open circuit claims nothing): it fails as a full disk would.
    let failed = false;
    const queue = {
      ...bound,
      claimDetections: (args: Parameters<typeof bound.claimDetections>[0]) => {
        if (!failed && uploader.status().circuit === 'half-open') {
          failed = true;
          throw new Error('database or disk is full');
        }
        return bound.claimDetections(args);
      },
    };
    const uploader = new Uploader(queue, world.client, pino({ level: 'silent' }), {
      concurrency: 2,
      backoff: { baseMs: 50, maxMs: 200 },
      probeIntervalMs: 1000,
      noSoundscapeAfterMs: 0,
    });
    uploader.start();
    try {
      await until('a claim failed in half-open', () => failed, 30_000);
      world.emulator.setFaults(null);
      await until('every detection uploaded', () => world!.counts().detections.uploaded === N, 30_000);
    } finally {
      await uploader.stop();
    }
    expect(uploader.status().circuit).toBe('closed');
    expect((await world.allDetections()).length).toBe(N);
  }, 90_000);
});
