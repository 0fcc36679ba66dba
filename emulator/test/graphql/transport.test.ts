import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startWorld, type World } from './world.js';

/** GraphQL over HTTP: GET and POST, the error shapes, and the depth, cost and size limits. */

let w: World;
let endpoint: string;

beforeAll(async () => {
  w = await startWorld();
  endpoint = `${w.emulator.url}/graphql`;
  await w.detect('garden', 10);
});
afterAll(() => w.stop());

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read whatever the service answered
async function send(init: RequestInit, query = ''): Promise<{ status: number; body: any }> {
  const response = await fetch(`${endpoint}${query}`, init);
  return { status: response.status, body: await response.json() };
}

const post = (body: string) => send({ method: 'POST', headers: { 'content-type': 'application/json' }, body });

describe('HTTP', () => {
  test('GET takes query, variables and operationName from the query string', async () => {
    const params = new URLSearchParams({
      query: 'query A { stations { totalCount } } query B($n: Int) { detections(first: $n) { totalCount nodes { id } } }',
      variables: JSON.stringify({ n: 1 }),
      operationName: 'B',
    });
    const answer = await send({ method: 'GET' }, `?${params.toString()}`);
    expect(answer.status).toBe(200);
    expect(answer.body.data.detections.totalCount).toBe(1);
    expect(answer.body.errors).toBeUndefined();
  });

  test('POST with JSON answers 200 with data and, for failed fields, errors beside it', async () => {
    // searchSpecies may be null (the spec's type), so its error leaves the rest of the data in place.
    const answer = await post(JSON.stringify({ query: '{ ok: stations { totalCount } bad: searchSpecies(first: -5) { totalCount } }' }));
    expect(answer.status).toBe(200);
    expect(answer.body.data).toEqual({ ok: { totalCount: 4 }, bad: null });
    expect(answer.body.errors).toEqual([
      expect.objectContaining({ message: 'first must be 0 or more, got -5', path: ['bad'], extensions: { code: 'BAD_USER_INPUT' } }),
    ]);
  });

  test('a document that does not fit the schema is answered 200 with errors and no data', async () => {
    const syntax = await post(JSON.stringify({ query: '{ stations { ' }));
    expect(syntax.status).toBe(200);
    expect(syntax.body.data).toBeUndefined();
    expect(syntax.body.errors[0].message).toMatch(/^Syntax Error/);
    const unknown = await post(JSON.stringify({ query: '{ nests { id } }' }));
    expect(unknown.body.errors[0]).toMatchObject({ message: 'Cannot query field "nests" on type "Query".', extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } });
    const variable = await post(JSON.stringify({ query: 'query($n: Int!) { detections(first: $n) { totalCount } }', variables: { n: 'ten' } }));
    expect(variable.body.errors[0].message).toMatch(/^Variable "\$n" got invalid value "ten"/);
    const two = await post(JSON.stringify({ query: 'query A { stations { totalCount } } query B { stations { totalCount } }' }));
    expect(two.body.errors[0].message).toBe('the document holds several operations: give operationName');
  });

  test('a request that is not well-formed is answered 400, other methods 405', async () => {
    const badJson = await post('{"query": ');
    expect(badJson.status).toBe(400);
    expect(badJson.body.errors[0].message).toMatch(/JSON/);
    const noQuery = await post(JSON.stringify({ variables: {} }));
    expect(noQuery).toEqual({ status: 400, body: { errors: [{ message: 'query is missing: send {"query": "..."}' }] } });
    const arrayVariables = await post(JSON.stringify({ query: '{ stations { totalCount } }', variables: [1] }));
    expect(arrayVariables).toEqual({ status: 400, body: { errors: [{ message: 'variables must be a JSON object' }] } });
    const badGetVariables = await send({ method: 'GET' }, `?query=${encodeURIComponent('{ stations { totalCount } }')}&variables=%7B`);
    expect(badGetVariables).toEqual({ status: 400, body: { errors: [{ message: 'variables is not valid JSON' }] } });
    const put = await send({ method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(put.status).toBe(405);
  });

  test('a subscription over HTTP is refused with a pointer to the WebSocket', async () => {
    const answer = await post(JSON.stringify({ query: 'subscription { newDetection { detection { id } } }' }));
    expect(answer.body.errors[0].message).toBe('subscriptions are served over WebSocket (graphql-ws protocol) at /graphql');
  });
});

describe('limits', () => {
  test('more than 12 nested fields are refused before anything runs', async () => {
    const deep =
      '{ stations { nodes { detections { nodes { station { detections { nodes { species { topDetections { nodes { station { detections { nodes { id } } } } } } } } } } } } } }';
    const answer = await post(JSON.stringify({ query: deep }));
    expect(answer.body.data).toBeUndefined();
    expect(answer.body.errors).toContainEqual({ message: 'query depth 14 exceeds the limit of 12 nested fields', extensions: { code: 'QUERY_TOO_COMPLEX' } });
    const twelve =
      '{ stations(first: 2) { nodes { detections(first: 2) { nodes { station { detections(first: 2) { nodes { species { topDetections(first: 2) { nodes { station { name } } } } } } } } } } } }';
    expect((await post(JSON.stringify({ query: twelve }))).body.errors).toBeUndefined();
  });

  test('the estimated cost counts nested pages, through fragments and variables', async () => {
    const query = `query($n: Int) { stations(first: $n) { nodes { ...D } } } fragment D on Station { detections(first: $n) { nodes { id } } }`;
    const tooMuch = await post(JSON.stringify({ query, variables: { n: 100 } }));
    expect(tooMuch.body.errors[0]).toMatchObject({ extensions: { code: 'QUERY_TOO_COMPLEX' } });
    expect(tooMuch.body.errors[0].message).toMatch(/^query cost 10202 exceeds the limit of 10000/);
    // Sizes above 100 are clamped before they are counted: still refused, with the same cost.
    const clamped = await post(JSON.stringify({ query, variables: { n: 500 } }));
    expect(clamped.body.errors[0].message).toMatch(/^query cost 10202 exceeds the limit of 10000/);
    const fine = await post(JSON.stringify({ query, variables: { n: 90 } }));
    expect(fine.body.errors).toBeUndefined();
    expect(fine.body.data.stations.nodes).toHaveLength(4);
  });

  test('a document of more than 5000 tokens is refused', async () => {
    const query = `{ ${Array.from({ length: 3000 }, (_, i) => `a${i}: __typename`).join(' ')} }`;
    const answer = await post(JSON.stringify({ query }));
    expect(answer.body.errors[0].message).toMatch(/Document contains more tha[nt] 5000 tokens/);
  });
});
