import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from 'graphql-ws/client';
import type { LoadedConfig } from '../../config/index.js';
import { errorMessage } from '../../errors.js';
import { deadline, type Deadline } from '../../system/deadline.js';
import { createOutput, type Output } from '../format/output.js';
import { dataOf, postGraphql, stationScope, webSocketUrl, type GraphqlError } from './graphql-support.js';
import { loadCliConfig } from './support/context.js';
import { CommandFailure, UsageError } from './support/errors.js';

export interface WatchFlags {
  config?: string;
  json?: boolean;
  stationId?: string[];
  allStations?: boolean;
  species?: string[];
  classification?: string[];
  stationType?: string[];
  mode?: string[];
  continent?: string[];
  country?: string[];
  minScore?: number;
  maxScore?: number;
  minConfidence?: number;
  maxConfidence?: number;
  minProbability?: number;
  maxProbability?: number;
  hours?: { from: number; to: number };
  overrideStationFilters?: boolean;
  count?: number;
}

/** The action of `station-agent watch`, loaded only when it runs. */

const SUBSCRIPTION = `
subscription Watch($speciesIds: [ID!], $classifications: [String!], $stationIds: [ID!], $stationTypes: [String!],
    $continents: [String!], $countries: [String!], $recordingModes: [String!], $scoreGte: Float, $scoreLte: Float,
    $confidenceGte: Float, $confidenceLte: Float, $probabilityGte: Float, $probabilityLte: Float,
    $timeOfDayGte: Int, $timeOfDayLte: Int, $overrideStationFilters: Boolean) {
  newDetection(speciesIds: $speciesIds, classifications: $classifications, stationIds: $stationIds, stationTypes: $stationTypes,
      continents: $continents, countries: $countries, recordingModes: $recordingModes, scoreGte: $scoreGte, scoreLte: $scoreLte,
      confidenceGte: $confidenceGte, confidenceLte: $confidenceLte, probabilityGte: $probabilityGte, probabilityLte: $probabilityLte,
      timeOfDayGte: $timeOfDayGte, timeOfDayLte: $timeOfDayLte, overrideStationFilters: $overrideStationFilters) {
    detection {
      id timestamp confidence probability score certainty
      coords { lat lon }
      species { id commonName scientificName }
      station { id name timezone }
      soundscape { url startTime endTime }
    }
  }
}`;

export interface WatchedDetection {
  id: string;
  timestamp: string | null;
  confidence: number;
  probability: number | null;
  score: number;
  certainty: string;
  coords: { lat: number; lon: number };
  species: { id: string; commonName: string; scientificName: string | null };
  station: { id: string; name: string; timezone: string } | null;
  soundscape: { url: string; startTime: number; endTime: number } | null;
}

/** Pauses between reconnection attempts: 1 s, doubling up to 30 s, with a little jitter. */
function reconnectDelayMs(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(30_000, 1_000 * 2 ** attempt);
  return Math.round(base * (0.8 + 0.4 * random()));
}

/** `--species` values: ids (no blank: a number or the service's id) as they are; scientific names (always two words or more) looked up. */
async function speciesIds(names: string[] | undefined, url: string, timeoutMs: number): Promise<string[] | undefined> {
  if (!names?.length) return undefined;
  const ids: string[] = [];
  for (const name of names) {
    if (!/\s/.test(name)) {
      ids.push(name);
      continue;
    }
    const data = dataOf(
      await postGraphql<{ species: { id: string } | null }>(
        url,
        { query: 'query($name: String) { species(scientificName: $name) { id } }', variables: { name } },
        timeoutMs,
      ),
    );
    if (!data.species) throw new UsageError(`--species: the service knows no species with the scientific name "${name}"`);
    ids.push(data.species.id);
  }
  return ids;
}

function variablesOf(flags: WatchFlags, stationIds: string[] | undefined, species: string[] | undefined): Record<string, unknown> {
  const vars: Record<string, unknown> = {
    speciesIds: species,
    classifications: flags.classification,
    stationIds,
    stationTypes: flags.stationType,
    continents: flags.continent,
    countries: flags.country,
    recordingModes: flags.mode,
    scoreGte: flags.minScore,
    scoreLte: flags.maxScore,
    confidenceGte: flags.minConfidence,
    confidenceLte: flags.maxConfidence,
    probabilityGte: flags.minProbability,
    probabilityLte: flags.maxProbability,
    timeOfDayGte: flags.hours?.from,
    timeOfDayLte: flags.hours?.to,
    overrideStationFilters: flags.overrideStationFilters,
  };
  return Object.fromEntries(Object.entries(vars).filter(([, v]) => v !== undefined));
}

/** One line for people: time, species, score and certainty, confidence, station. */
function detectionLine(d: WatchedDetection, out: Output): string {
  const time = (d.timestamp ?? '').replace('T', ' ').replace(/\.\d{3}/, '');
  const species = `${out.style.bold(d.species.commonName)}${d.species.scientificName ? ` (${d.species.scientificName})` : ''}`;
  return [time, species, `score ${d.score.toFixed(1)} ${d.certainty}`, `confidence ${d.confidence.toFixed(2)}`, d.station?.name ?? '']
    .filter(Boolean)
    .join('  ');
}

function describe(flags: WatchFlags, stationIds: string[] | undefined): string {
  const scope = stationIds ? (flags.stationId ? `stations ${stationIds.join(', ')}` : `this station (${stationIds[0]})`) : 'all stations';
  return `watching detections of ${scope}`;
}

function subscriptionFailure(errors: readonly GraphqlError[]): Error {
  const messages = errors.map((e) => e.message).join('; ');
  if (errors.every((e) => e.extensions?.code === 'BAD_USER_INPUT')) return new UsageError(`the service refused the filters: ${messages}`);
  return new CommandFailure(`the service refused the subscription: ${messages}`);
}

export async function watchAction(flags: WatchFlags): Promise<void> {
  const loaded: LoadedConfig = await loadCliConfig(flags);
  const { graphqlUrl, timeoutMs } = loaded.config.service;
  const out = createOutput();
  const stationIds = await stationScope(loaded, flags);
  const species = await speciesIds(flags.species, graphqlUrl, timeoutMs);
  const variables = variablesOf(flags, stationIds, species);
  const [{ createClient }, { default: WebSocket }] = await Promise.all([import('graphql-ws/client'), import('ws')]);

  let connectedBefore = false;
  let connected = false;
  let stopping = false;
  let seen = 0;
  // Limits of our own (system/deadline.ts): the connect (WebSocket handshake and the
  // service's connection_ack) and the answer to each keep-alive ping get
  // service.timeoutMs in all. ws's handshakeTimeout is a socket idle timeout, which a
  // peer answering one byte at a time never lets fire, and graphql-ws waits for an
  // ack or a pong for ever: either way watch would hang without a word.
  let limit: Deadline | null = null;
  let socket: InstanceType<typeof WebSocket> | null = null;
  const track = (ws: InstanceType<typeof WebSocket>) => (socket = ws);
  /** The WebSocket graphql-ws makes, remembered so that a limit can end it. */
  class TrackedWebSocket extends WebSocket {
    constructor(address: string, protocols?: string | string[]) {
      super(address, protocols);
      track(this);
    }
  }
  const within = (what: string) => {
    limit?.clear();
    const current = deadline(timeoutMs);
    limit = current;
    current.signal.addEventListener('abort', () => {
      if (!current.expired || limit !== current) return;
      out.note(`watch: ${what} from ${graphqlUrl} within ${timeoutMs} ms`);
      // ws's own terminate: the socket fails as any lost connection does, and graphql-ws
      // retries after retryWait (its client.terminate() leaves a handshake's error unhandled).
      socket?.terminate();
    });
  };
  const settle = () => {
    limit?.clear();
    limit = null;
  };
  const client: Client = createClient({
    url: webSocketUrl(graphqlUrl),
    webSocketImpl: TrackedWebSocket,
    lazy: true,
    keepAlive: 10_000,
    retryAttempts: Number.POSITIVE_INFINITY,
    // Every dropped connection is worth another try: the service restarts, links come back.
    shouldRetry: () => true,
    retryWait: async (attempt) => {
      const delay = reconnectDelayMs(attempt);
      out.note(`watch: reconnecting in ${(delay / 1000).toFixed(1)} s (attempt ${attempt + 1})`);
      await sleep(delay);
    },
    on: {
      connecting: () => within('no connection'),
      ping: (received) => {
        if (!received) within('no answer to a keep-alive ping');
      },
      pong: (received) => {
        if (received) settle();
      },
      connected: () => {
        settle();
        out.note(connectedBefore ? 'watch: reconnected (detections of the gap are not replayed)' : `${describe(flags, stationIds)} (Ctrl-C to stop)`);
        connectedBefore = true;
        connected = true;
      },
      closed: (event) => {
        settle();
        // Failed reconnection attempts are reported by retryWait's line; only a lost connection is news.
        const wasConnected = connected;
        connected = false;
        if (!wasConnected || stopping) return;
        const { code, reason } = event as { code?: number; reason?: string };
        out.note(`watch: connection to ${graphqlUrl} lost (${code ?? '?'}${reason ? ` ${reason}` : ''})`);
      },
      error: (err) => {
        if (!connectedBefore) out.note(`watch: cannot connect to ${graphqlUrl}: ${errorMessage(err)}`);
      },
    },
  });

  await new Promise<void>((resolve, reject) => {
    let stop: (err?: Error) => void = () => {};
    const unsubscribe = client.subscribe<{ newDetection: { detection: WatchedDetection } }>(
      { query: SUBSCRIPTION, variables },
      {
        next: (message) => {
          if (message.errors?.length) return stop(subscriptionFailure(message.errors as GraphqlError[]));
          const detection = message.data?.newDetection.detection;
          if (!detection) return;
          out.line(flags.json ? JSON.stringify(detection) : detectionLine(detection, out));
          if (flags.count !== undefined && ++seen >= flags.count) stop();
        },
        error: (err) => stop(Array.isArray(err) ? subscriptionFailure(err as GraphqlError[]) : new CommandFailure(`watch: ${errorMessage(err)}`)),
        complete: () => stop(),
      },
    );
    const onSignal = () => stop();
    stop = (err?: Error) => {
      stop = () => {};
      stopping = true;
      settle();
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      unsubscribe();
      void client.dispose();
      if (err) reject(err);
      else resolve();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}
