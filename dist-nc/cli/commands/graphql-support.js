import { InvalidArgumentError } from 'commander';
import { HttpStatusError, NetworkError, OutcomeUnknownError } from '../../api/errors.js';
import { classifyBody } from '../../api/answer.js';
import { errorMessage } from '../../errors.js';
import { deadline } from '../../system/deadline.js';
import { CommandFailure, UsageError } from './support/errors.js';
export function webSocketUrl(graphqlUrl) {
    return graphqlUrl.replace(/^http(s?):\/\//i, 'ws$1://');
}
export async function postGraphql(url, request, timeoutMs) {
    const label = `POST ${url}`;
    const limit = deadline(timeoutMs);
    let response;
    let text;
    try {
        response = await fetch(url, {
            method: 'POST',
            headers: { 'content-type': 'application/json', accept: 'application/json' },
            body: JSON.stringify(request),
            signal: limit.signal,
        });
        text = await response.text();
    }
    catch (err) {
        const cause = err.cause?.code;
        if (limit.expired)
            throw new OutcomeUnknownError(`no answer within ${timeoutMs} ms`, label, 'TIMEOUT', { cause: err });
        throw new NetworkError(`cannot reach the GraphQL endpoint: ${cause ?? errorMessage(err)}`, label, cause, { cause: err });
    }
    finally {
        limit.clear();
    }
    const { html, json } = classifyBody(response.headers.get('content-type') ?? undefined, text);
    const body = json ?? null;
    const isDocument = typeof body === 'object' && body !== null && ('data' in body || 'errors' in body);
    if (!isDocument) {
        throw new HttpStatusError(label, {
            status: response.status,
            body,
            serverMessage: response.ok ? 'not a GraphQL response' : undefined,
            errors: undefined,
            html,
            retryAfterMs: undefined,
        });
    }
    return body;
}
export function dataOf(response) {
    if (response.errors?.length || response.data == null) {
        const messages = (response.errors ?? [{ message: 'no data in the response' }]).map((e) => e.message).join('; ');
        const badInput = response.errors?.every((e) => e.extensions?.code === 'BAD_USER_INPUT');
        throw badInput ? new UsageError(`the service refused the request: ${messages}`) : new CommandFailure(`the service answered with errors: ${messages}`);
    }
    return response.data;
}
export const GRAPHQL_PERIODS = ['day', 'week', 'month', 'year', 'all'];
export async function stationScope(loaded, flags) {
    if (flags.allStations && flags.stationId?.length)
        throw new UsageError('--all-stations and --station-id do not go together');
    if (flags.allStations)
        return undefined;
    if (flags.stationId?.length)
        return flags.stationId;
    return [String(await ownStationId(loaded))];
}
async function ownStationId(loaded) {
    const stored = await storedStationId(loaded.config.dataDir);
    if (stored !== undefined)
        return stored;
    const { createCliClient } = await import('./support/client.js');
    const { client } = await createCliClient(loaded, {});
    try {
        return (await client.updateConfig({})).id;
    }
    finally {
        await client.close();
    }
}
async function storedStationId(dataDir) {
    const { queueDbPath, queueExists } = await import('../../status/queue-file.js');
    if (!queueExists(dataDir))
        return undefined;
    const [queue, { readStation }] = await Promise.all([import('../../queue/index.js'), import('../../status/report.js')]);
    try {
        const q = queue.openQueue(queueDbPath(dataDir));
        try {
            return readStation(queue.getMeta(q, 'station'))?.record.id;
        }
        finally {
            q.close();
        }
    }
    catch {
        return undefined;
    }
}
export function idList(value, previous) {
    const ids = value.split(',').map((s) => s.trim()).filter(Boolean);
    if (ids.length === 0)
        throw new InvalidArgumentError(`expected one or more ids, comma-separated, got "${value}".`);
    return [...(previous ?? []), ...ids];
}
