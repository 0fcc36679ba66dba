import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '@station-agent/emulator';
import { createServiceClient, type ServiceClient } from '../../src/api/client.js';
import { NetworkError, OutcomeUnknownError } from '../../src/api/errors.js';
import type { RecordingItem } from '../../src/queue/index.js';
import type { BudgetDay } from '../../src/upload/data-budget.js';
import { LinkPolicy } from '../../src/upload/link-policy.js';
import { SpeciesIdCache } from '../../src/upload/reconcile.js';
import { sendRecording, type SendContext } from '../../src/upload/send.js';
import { startTrickleServer } from '../helpers/trickle-server.js';

/**
 * A soundscape encoded into memory goes to the service whole when no bandwidth cap paces
 * it (no stream between the buffer and the socket), and its bytes count toward the day's
 * budget exactly when they may have left: on success, and on any failure but one that
 * proves nothing was written.
 */

const TOKEN = 'send-station-T0KEN';
const ZONE = 'Europe/Berlin';
const { makeFlac } = await import('../../emulator/test/flac-fixture.js');
const FLAC: Buffer = makeFlac();

function recording(): RecordingItem {
  const timestamp = `${new Date(Math.floor(Date.now() / 1000) * 1000 - 3_600_000).toISOString().slice(0, 19)}+00:00`;
  return {
    kind: 'recording',
    id: 1,
    state: 'sending',
    previousState: 'pending',
    attempts: 0,
    nextAttemptAt: 0,
    lastError: null,
    lastErrorCode: null,
    remoteId: null,
    holdReason: null,
    reconcile: false,
    sourceKey: 'rec|1',
    sourcePath: '/analyzer/rec.wav',
    spoolPath: '/spool/rec.wav',
    audioFormat: 'wav',
    timestamp,
    timeSource: 'filename',
    durationS: 3,
    sampleRate: 48_000,
    filesize: 1,
    createdAt: 0,
    updatedAt: 0,
  };
}

function link(audioBytesPerSec: number | null = null): LinkPolicy {
  let day: BudgetDay | undefined;
  const store = { load: () => day, save: (v: BudgetDay) => void (day = v) };
  return new LinkPolicy({ windows: [], windowsAudioOnly: false, audioBytesPerSec, audioBytesPerDay: 1_000_000_000, zone: ZONE }, store);
}

function context(client: ServiceClient, gate: LinkPolicy): SendContext {
  return { api: client, isRemoteIdTaken: () => false, species: new SpeciesIdCache(), signal: new AbortController().signal, link: gate };
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('sendRecording from memory', () => {
  let emulator: RunningEmulator;

  it('without a cap: the FLAC reaches the service whole and its bytes count once sent', async () => {
    emulator = await startEmulator({ port: 0, stations: [{ token: TOKEN, name: 'Send' }] });
    const client = createServiceClient({ baseUrl: emulator.url, token: TOKEN });
    cleanups.push(() => emulator.close(), () => client.close());
    const gate = link();
    expect(gate.pacesAudio).toBe(false);
    const result = await sendRecording(context(client, gate), recording(), { flac: FLAC });
    expect(result.remoteId).toEqual(expect.any(Number));
    const stored = await client.getSoundscape(result.remoteId);
    expect(stored.filesize).toBe(FLAC.length);
    expect(gate.budget.usedToday()).toBe(FLAC.length);
  });

  it('with a cap: the FLAC goes through the pacer, which counts it', async () => {
    emulator = await startEmulator({ port: 0, stations: [{ token: TOKEN, name: 'Send' }] });
    const client = createServiceClient({ baseUrl: emulator.url, token: TOKEN });
    cleanups.push(() => emulator.close(), () => client.close());
    const gate = link(100 * 1024 * 1024);
    expect(gate.pacesAudio).toBe(true);
    const result = await sendRecording(context(client, gate), recording(), { flac: FLAC });
    expect((await client.getSoundscape(result.remoteId)).filesize).toBe(FLAC.length);
    expect(gate.budget.usedToday()).toBe(FLAC.length);
  });

  it('a request that never left (connection refused) counts nothing', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer();
      s.listen(0, '127.0.0.1', () => {
        const { port: p } = s.address() as { port: number };
        s.close(() => resolve(p));
      });
    });
    const client = createServiceClient({ baseUrl: `http://127.0.0.1:${port}`, token: TOKEN });
    cleanups.push(() => client.close());
    const gate = link();
    await expect(sendRecording(context(client, gate), recording(), { flac: FLAC })).rejects.toBeInstanceOf(NetworkError);
    expect(gate.budget.usedToday()).toBe(0);
  });

  it('a request whose outcome is unknown (no answer in time) counts all its bytes', async () => {
    const trickle = await startTrickleServer({ mode: 'headers', intervalMs: 50 });
    const client = createServiceClient({ baseUrl: trickle.url, token: TOKEN, uploadTimeoutMs: 300 });
    cleanups.push(() => trickle.close(), () => client.close());
    const gate = link();
    await expect(sendRecording(context(client, gate), recording(), { flac: FLAC })).rejects.toBeInstanceOf(OutcomeUnknownError);
    expect(gate.budget.usedToday()).toBe(FLAC.length);
  });
});
