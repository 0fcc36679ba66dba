import { InvalidArgumentError } from 'commander';
import { HttpStatusError, NetworkError, OutcomeUnknownError, timedOut } from '../../api/errors.js';
import { classifyBody } from '../../api/answer.js';
import type { WireResponse } from '../../api/http.js';
import type { LoadedConfig } from '../../config/index.js';
import { errorMessage } from '../../errors.js';
import { CommandFailure, UsageError } from './support/errors.js';

/**
 * What the GraphQL commands (`watch`, `api graphql`, `api top-species`, `api counts`)
 * share: one request to `service.graphqlUrl`, and which station "the station" is.
 * GraphQL reads are public: no token is sent.
 */

export interface GraphqlError {
  message: string;
  path?: (string | number)[];
  extensions?: { code?: string };
}

export interface GraphqlResponse<T = Record<string, unknown>> {
  data?: T | null;
  errors?: GraphqlError[];
}

/** `http(s)://` -> `ws(s)://`, for the subscription transport at the same URL. */
export function webSocketUrl(graphqlUrl: string): string {
  return graphqlUrl.replace(/^http(s?):\/\//i, 'ws$1://');
}

/**
 * POSTs one GraphQL request and returns the response document, errors included: through
 * the agent's one request path (src/api/http.ts `sendOnce`), one deadline for the request
 * and its body, so an answer that trickles past it ends too.
 */
export async function postGraphql<T = Record<string, unknown>>(
  url: string,
  request: { query: string; variables?: Record<string, unknown>; operationName?: string },
  timeoutMs: number,
): Promise<GraphqlResponse<T>> {
  const label = `POST ${url}`;
  const { sendOnce } = await import('../../api/http.js');
  let response: WireResponse;
  try {
    response = await sendOnce(new URL(url), {
      method: 'POST',
      display: label,
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(request),
      timeoutMs,
    });
  } catch (err) {
    if (timedOut(err)) throw new OutcomeUnknownError(`no answer within ${timeoutMs} ms`, label, err.cause_code, { cause: err });
    if (err instanceof NetworkError) throw new NetworkError(`cannot reach the GraphQL endpoint: ${err.cause_code ?? errorMessage(err.cause)}`, label, err.cause_code, { cause: err });
    throw err;
  }
  // Not JSON (an HTML page from a proxy, anything else): reported below with the status.
  const { html, json } = classifyBody(response.headers['content-type'], response.body.toString('utf8'));
  const body = json ?? null;
  const isDocument = typeof body === 'object' && body !== null && ('data' in body || 'errors' in body);
  if (!isDocument) {
    const ok = response.status >= 200 && response.status < 300;
    throw new HttpStatusError(label, {
      status: response.status,
      body,
      serverMessage: ok ? 'not a GraphQL response' : undefined,
      errors: undefined,
      html,
      retryAfterMs: undefined,
    });
  }
  return body as GraphqlResponse<T>;
}

/** The data of a response, or an error with the service's messages (bad input: a usage error, exit 2). */
export function dataOf<T>(response: GraphqlResponse<T>): T {
  if (response.errors?.length || response.data == null) {
    const messages = (response.errors ?? [{ message: 'no data in the response' }]).map((e) => e.message).join('; ');
    const badInput = response.errors?.every((e) => e.extensions?.code === 'BAD_USER_INPUT');
    throw badInput ? new UsageError(`the service refused the request: ${messages}`) : new CommandFailure(`the service answered with errors: ${messages}`);
  }
  return response.data;
}

/** `--period`: the last one of these, or all. */
export const GRAPHQL_PERIODS = ['day', 'week', 'month', 'year', 'all'] as const;
export type GraphqlPeriod = (typeof GRAPHQL_PERIODS)[number];

export interface StationScopeFlags {
  stationId?: string[];
  allStations?: boolean;
}

/**
 * The stations a command is about: `--station-id` (numeric or GraphQL ids), nothing
 * with `--all-stations`, else this station: its id from the station record the
 * daemon stored at its last config sync, or, without one, from the service (an
 * empty config update, which changes nothing and answers with the station record).
 */
export async function stationScope(loaded: LoadedConfig, flags: StationScopeFlags): Promise<string[] | undefined> {
  if (flags.allStations && flags.stationId?.length) throw new UsageError('--all-stations and --station-id do not go together');
  if (flags.allStations) return undefined;
  if (flags.stationId?.length) return flags.stationId;
  return [String(await ownStationId(loaded))];
}

async function ownStationId(loaded: LoadedConfig): Promise<number> {
  const stored = await storedStationId(loaded.config.dataDir);
  if (stored !== undefined) return stored;
  const { createCliClient } = await import('./support/client.js');
  const { client } = await createCliClient(loaded, {});
  try {
    return (await client.updateConfig({})).id;
  } finally {
    await client.close();
  }
}

async function storedStationId(dataDir: string): Promise<number | undefined> {
  const { queueDbPath, queueExists } = await import('../../status/queue-file.js');
  if (!queueExists(dataDir)) return undefined;
  const [queue, { readStation }] = await Promise.all([import('../../queue/index.js'), import('../../status/report.js')]);
  try {
    const q = queue.openQueue(queueDbPath(dataDir));
    try {
      return readStation(queue.getMeta(q, 'station'))?.record.id;
    } finally {
      q.close();
    }
  } catch {
    // An unreadable queue only means asking the service.
    return undefined;
  }
}

/** Parser of a comma-separated list of ids (numbers or the service's opaque ids); repeating adds. */
export function idList(value: string, previous: string[] | undefined): string[] {
  const ids = value.split(',').map((s) => s.trim()).filter(Boolean);
  if (ids.length === 0) throw new InvalidArgumentError(`expected one or more ids, comma-separated, got "${value}".`);
  return [...(previous ?? []), ...ids];
}
