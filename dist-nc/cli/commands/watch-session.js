import { setTimeout as sleep } from 'node:timers/promises';
import { errorMessage } from '../../errors.js';
import { deadline } from '../../system/deadline.js';
import { createOutput } from '../format/output.js';
import { dataOf, postGraphql, stationScope, webSocketUrl } from './graphql-support.js';
import { loadCliConfig } from './support/context.js';
import { CommandFailure, UsageError } from './support/errors.js';
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
export function reconnectDelayMs(attempt, random = Math.random) {
    const base = Math.min(30_000, 1_000 * 2 ** attempt);
    return Math.round(base * (0.8 + 0.4 * random()));
}
async function speciesIds(names, url, timeoutMs) {
    if (!names?.length)
        return undefined;
    const ids = [];
    for (const name of names) {
        if (!/\s/.test(name)) {
            ids.push(name);
            continue;
        }
        const data = dataOf(await postGraphql(url, { query: 'query($name: String) { species(scientificName: $name) { id } }', variables: { name } }, timeoutMs));
        if (!data.species)
            throw new UsageError(`--species: the service knows no species with the scientific name "${name}"`);
        ids.push(data.species.id);
    }
    return ids;
}
function variablesOf(flags, stationIds, species) {
    const vars = {
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
export function detectionLine(d, out) {
    const time = (d.timestamp ?? '').replace('T', ' ').replace(/\.\d{3}/, '');
    const species = `${out.style.bold(d.species.commonName)}${d.species.scientificName ? ` (${d.species.scientificName})` : ''}`;
    return [time, species, `score ${d.score.toFixed(1)} ${d.certainty}`, `confidence ${d.confidence.toFixed(2)}`, d.station?.name ?? '']
        .filter(Boolean)
        .join('  ');
}
function describe(flags, stationIds) {
    const scope = stationIds ? (flags.stationId ? `stations ${stationIds.join(', ')}` : `this station (${stationIds[0]})`) : 'all stations';
    return `watching detections of ${scope}`;
}
function subscriptionFailure(errors) {
    const messages = errors.map((e) => e.message).join('; ');
    if (errors.every((e) => e.extensions?.code === 'BAD_USER_INPUT'))
        return new UsageError(`the service refused the filters: ${messages}`);
    return new CommandFailure(`the service refused the subscription: ${messages}`);
}
export async function watchAction(flags) {
    const loaded = await loadCliConfig(flags);
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
    let limit = null;
    let socket = null;
    const track = (ws) => (socket = ws);
    class TrackedWebSocket extends WebSocket {
        constructor(address, protocols) {
            super(address, protocols);
            track(this);
        }
    }
    const within = (what) => {
        limit?.clear();
        const current = deadline(timeoutMs);
        limit = current;
        current.signal.addEventListener('abort', () => {
            if (!current.expired || limit !== current)
                return;
            out.note(`watch: ${what} from ${graphqlUrl} within ${timeoutMs} ms`);
            socket?.terminate();
        });
    };
    const settle = () => {
        limit?.clear();
        limit = null;
    };
    const client = createClient({
        url: webSocketUrl(graphqlUrl),
        webSocketImpl: TrackedWebSocket,
        lazy: true,
        keepAlive: 10_000,
        retryAttempts: Number.POSITIVE_INFINITY,
        shouldRetry: () => true,
        retryWait: async (attempt) => {
            const delay = reconnectDelayMs(attempt);
            out.note(`watch: reconnecting in ${(delay / 1000).toFixed(1)} s (attempt ${attempt + 1})`);
            await sleep(delay);
        },
        on: {
            connecting: () => within('no connection'),
            ping: (received) => {
                if (!received)
                    within('no answer to a keep-alive ping');
            },
            pong: (received) => {
                if (received)
                    settle();
            },
            connected: () => {
                settle();
                out.note(connectedBefore ? 'watch: reconnected (detections of the gap are not replayed)' : `${describe(flags, stationIds)} (Ctrl-C to stop)`);
                connectedBefore = true;
                connected = true;
            },
            closed: (event) => {
                settle();
                const wasConnected = connected;
                connected = false;
                if (!wasConnected || stopping)
                    return;
                const { code, reason } = event;
                out.note(`watch: connection to ${graphqlUrl} lost (${code ?? '?'}${reason ? ` ${reason}` : ''})`);
            },
            error: (err) => {
                if (!connectedBefore)
                    out.note(`watch: cannot connect to ${graphqlUrl}: ${errorMessage(err)}`);
            },
        },
    });
    await new Promise((resolve, reject) => {
        let stop = () => { };
        const unsubscribe = client.subscribe({ query: SUBSCRIPTION, variables }, {
            next: (message) => {
                if (message.errors?.length)
                    return stop(subscriptionFailure(message.errors));
                const detection = message.data?.newDetection.detection;
                if (!detection)
                    return;
                out.line(flags.json ? JSON.stringify(detection) : detectionLine(detection, out));
                if (flags.count !== undefined && ++seen >= flags.count)
                    stop();
            },
            error: (err) => stop(Array.isArray(err) ? subscriptionFailure(err) : new CommandFailure(`watch: ${errorMessage(err)}`)),
            complete: () => stop(),
        });
        const onSignal = () => stop();
        stop = (err) => {
            stop = () => { };
            stopping = true;
            settle();
            process.off('SIGINT', onSignal);
            process.off('SIGTERM', onSignal);
            unsubscribe();
            void client.dispose();
            if (err)
                reject(err);
            else
                resolve();
        };
        process.on('SIGINT', onSignal);
        process.on('SIGTERM', onSignal);
    });
}
