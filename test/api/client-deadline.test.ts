import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createServiceClient, type ServiceClient } from '../../src/api/client.js';
import { NetworkError, OutcomeUnknownError } from '../../src/api/errors.js';
import type { ServiceClientOptions } from '../../src/api/transport.js';
import { tempDir } from '../helpers/paths.js';
import { outcomeWithin } from '../helpers/outcome.js';
import { trickleForTest as trickle } from '../helpers/trickle-server.js';
import { until } from '../helpers/until.js';
import { expectNoSecret } from './test-server.js';

/**
 * Every call has a total deadline (`timeoutMs`, from the dispatch to the complete
 * response), against a real peer that answers one byte every 100 ms: the socket's idle
 * timeouts restart at each byte and never fire. The deadline keeps the exactly-once
 * split: once the request was written the outcome is unknown (the service may be
 * storing it while its answer trickles); still queued for a connection, nothing was sent.
 */

const TOKEN = 'stn-S3CRET-tok-987';
const DETECTION = { timestamp: '2024-05-01T06:00:03.000+02:00', commonName: 'Eurasian Wren', scientificName: 'Troglodytes troglodytes' };
/** Long enough that a test still waiting on it has failed: the deadlines here are 300 ms. */
const GUARD_MS = 20_000;

function client(baseUrl: string, extra: Partial<ServiceClientOptions> = {}): ServiceClient {
  const c = createServiceClient({ baseUrl, token: TOKEN, timeoutMs: 300, ...extra });
  onTestFinished(() => c.close());
  return c;
}

/** The call's error, or a failure if it is still pending after GUARD_MS (no deadline). */
async function failure(call: Promise<unknown>): Promise<Error> {
  const outcome = await outcomeWithin(call.then(() => 'resolved'), GUARD_MS);
  expect(outcome, 'the call should have ended with an error at its deadline').toBeInstanceOf(Error);
  expectNoSecret(outcome, TOKEN);
  return outcome as Error;
}

describe('the total deadline of a service call, against a peer that trickles', () => {
  it('a detection whose answer trickles its body: outcome unknown at the deadline', async () => {
    const s = await trickle('body');
    const err = await failure(client(s.url).postDetection(DETECTION));
    expect(err).toBeInstanceOf(OutcomeUnknownError);
    expect(err).toMatchObject({ code: 'ERR_OUTCOME_UNKNOWN', cause_code: 'ERR_DEADLINE' });
    expect(err.message).toContain('no complete answer within 300 ms');
    // The detection arrived: a blind retry would duplicate it.
    expect(JSON.parse(s.bodies[0].toString())).toMatchObject(DETECTION);
  }, 30_000);

  it('a read whose answer trickles its headers, with a per-call limit', async () => {
    const s = await trickle('headers');
    const err = await failure(client(s.url, { timeoutMs: 60_000 }).stats({}, { timeoutMs: 300 }));
    expect(err).toMatchObject({ code: 'ERR_OUTCOME_UNKNOWN', cause_code: 'ERR_DEADLINE' });
  }, 30_000);

  it('a soundscape upload whose answer trickles: outcome unknown (the uploader reconciles it)', async () => {
    const tmp = tempDir('api-deadline-');
    onTestFinished(tmp.cleanup);
    const file = path.join(tmp.dir, 'rec.flac');
    writeFileSync(file, Buffer.alloc(64 * 1024, 7));
    const s = await trickle('body');
    const err = await failure(client(s.url, { uploadTimeoutMs: 300 }).uploadSoundscape({ timestamp: '2024-05-01T06:00:00Z', body: file }));
    expect(err).toBeInstanceOf(OutcomeUnknownError);
    expect(err).toMatchObject({ cause_code: 'ERR_DEADLINE' });
  }, 30_000);

  it('a request still queued behind a trickling one reaches its deadline unsent: NetworkError, safe to retry', async () => {
    const s = await trickle('body');
    const c = client(s.url, { connections: 1, timeoutMs: 60_000 });
    // The first holds the only connection (its own limit is far away; it is aborted below).
    const holder = new AbortController();
    const first = c.postDetection(DETECTION, { timeoutMs: 60_000, signal: holder.signal });
    first.catch(() => {});
    onTestFinished(() => holder.abort());
    await until('the first request at the peer', () => s.requests.length === 1, 5_000);
    const err = await failure(c.postDetection(DETECTION, { timeoutMs: 300 }));
    expect(err).toBeInstanceOf(NetworkError);
    expect(err).toMatchObject({ code: 'ERR_NETWORK_BEFORE_SEND', cause_code: 'ERR_DEADLINE' });
    expect(s.requests).toHaveLength(1);
  }, 30_000);
});
