/* eslint-disable @typescript-eslint/no-explicit-any -- tests read whatever the service sent */
import { createClient, type Client } from 'graphql-ws';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import WebSocket from 'ws';
import { until } from '../../../test/helpers/until.js';
import { gid } from './helpers.js';
import { SPECIES, startWorld, type World } from './world.js';

/** The newDetection subscription over a real WebSocket (graphql-ws protocol). */

let w: World;
let client: Client;

beforeAll(async () => {
  w = await startWorld();
});
afterAll(() => w.stop());
afterEach(async () => {
  await client?.dispose();
  // The server lets go of a subscription when its socket closes; the next test counts listeners from 0.
  await listening(0);
});

function connect(): Client {
  client = createClient({ url: `${w.emulator.url.replace(/^http/, 'ws')}/graphql`, webSocketImpl: WebSocket, retryAttempts: 0 });
  return client;
}

/** Subscribes and hands out the messages one by one (undefined once it ended without one). */
function subscribe(query: string) {
  const received: any[] = [];
  const errors: unknown[] = [];
  let ended = false;
  const dispose = connect().subscribe(
    { query },
    {
      next: (value) => received.push(value),
      error: (err) => {
        errors.push(err);
        ended = true;
      },
      complete: () => (ended = true),
    },
  );
  return {
    dispose,
    errors,
    async next(): Promise<any> {
      await until('a subscription message or its end', () => received.length > 0 || errors.length > 0 || ended);
      return received.shift();
    },
  };
}

/** The subscription is live once the emulator has a listener for it. */
async function listening(count: number): Promise<void> {
  await until(`${count} detection listeners`, () => w.emulator.events.listenerCount('detection') === count, 5_000, () => `have ${w.emulator.events.listenerCount('detection')}`);
}

describe('newDetection', () => {
  test('delivers matching detections posted through REST and skips the others', async () => {
    const sub = subscribe(`subscription { newDetection(stationIds: [${w.ids.garden}], classifications: ["avian"], confidenceGte: 0.8) {
      detection { id timestamp confidence species { commonName } station { name } } } }`);
    await listening(1);
    // Not matching: another station, a bat, too low a confidence, below the station's minimum.
    await w.detect('ridge', 1);
    await w.detect('garden', 1, SPECIES.pipistrelle);
    await w.detect('garden', 1, { confidence: 0.75 });
    const first = await w.detect('garden', 2, SPECIES.robin);
    expect(await sub.next()).toEqual({
      data: {
        newDetection: {
          detection: {
            id: gid('Detection', first.id),
            timestamp: first.timestamp,
            confidence: 0.9,
            species: { commonName: 'European Robin' },
            station: { name: 'Garden' },
          },
        },
      },
    });
    await w.detect('phone', 1);
    const second = await w.detect('garden', 0, { confidence: 0.8 });
    expect((await sub.next()).data.newDetection.detection.id).toBe(gid('Detection', second.id));
    sub.dispose();
    await listening(0);
  });

  test('station filters apply unless overrideStationFilters; F bounds are strict or inclusive as named', async () => {
    const low = subscribe(`subscription { newDetection(overrideStationFilters: true, confidenceLt: 0.5, stationTypes: ["analyzerpi"]) { detection { id confidence } } }`);
    await listening(1);
    await w.detect('garden', 0, { confidence: 0.5 });
    const below = await w.detect('garden', 0, { confidence: 0.4 });
    expect((await low.next()).data.newDetection.detection).toEqual({ id: gid('Detection', below.id), confidence: 0.4 });
  });

  test('continents and time of day in the station zone', async () => {
    const sub = subscribe(`subscription { newDetection(continents: ["North America"], timeOfDayGte: 20, timeOfDayLte: 23) { detection { id timestamp } } }`);
    await listening(1);
    // 02:00 UTC is 22:00 in New York (EDT) and 04:00 in Berlin.
    const at = new Date(Date.UTC(2025, 5, 10, 2, 0)).toISOString();
    await w.detect('garden', 0, { timestamp: at });
    const ridge = await w.detect('ridge', 0, { timestamp: at });
    const got = (await sub.next()).data.newDetection.detection;
    expect(got).toEqual({ id: gid('Detection', ridge.id), timestamp: '2025-06-09T22:00:00.000-04:00' });
  });

  test('bad filter arguments end the subscription with a clear error', async () => {
    const sub = subscribe('subscription { newDetection(classifications: ["fish"]) { detection { id } } }');
    const message = await sub.next();
    const errors = message?.errors ?? sub.errors[0];
    expect(JSON.stringify(errors)).toContain('classifications[0]: \\"fish\\" is not one of avian');
    await listening(0);
  });

  test('documents over the limits are refused before subscribing', async () => {
    const sub = subscribe(
      'subscription { newDetection { detection { station { detections { nodes { station { detections { nodes { station { detections { nodes { species { topDetections { nodes { id } } } } } } } } } } } } } } }',
    );
    await sub.next();
    expect(JSON.stringify(sub.errors)).toContain('exceeds the limit of 12 nested fields');
    await listening(0);
  });

  test('queries work over the socket too', async () => {
    const answer = await new Promise<any>((resolve, reject) => {
      let result: unknown;
      connect().subscribe(
        { query: `{ station(id: ${w.ids.garden}) { name } }` },
        { next: (v) => (result = v), error: reject, complete: () => resolve(result) },
      );
    });
    expect(answer).toEqual({ data: { station: { name: 'Garden' } } });
  });

  test('WebSocket upgrades of other paths are refused', async () => {
    const ws = new WebSocket(`${w.emulator.url.replace(/^http/, 'ws')}/api/v1/stations/garden-token`, 'graphql-transport-ws');
    const outcome = await new Promise<string>((resolve) => {
      ws.on('open', () => resolve('open'));
      ws.on('error', (err) => resolve(err.message));
    });
    expect(outcome).toMatch(/404/);
  });
});

test('closing the service ends open subscriptions at once', async () => {
  const own = await startWorld();
  const c = createClient({ url: `${own.emulator.url.replace(/^http/, 'ws')}/graphql`, webSocketImpl: WebSocket, retryAttempts: 0, lazy: false, onNonLazyError: () => {} });
  try {
    const closed = new Promise<number>((resolve) => c.on('closed', (event) => resolve((event as { code: number }).code)));
    c.subscribe({ query: 'subscription { newDetection { detection { id } } }' }, { next: () => {}, error: () => {}, complete: () => {} });
    const deadline = Date.now() + 5_000;
    while (own.emulator.events.listenerCount('detection') === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(own.emulator.events.listenerCount('detection')).toBe(1);
    await own.stop();
    expect(await closed).toBe(1001);
    expect(own.emulator.events.listenerCount('detection')).toBe(0);
  } finally {
    await c.dispose();
  }
});
