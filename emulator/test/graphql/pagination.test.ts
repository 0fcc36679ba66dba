import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { gid } from './helpers.js';
import { SPECIES, startWorld, type World } from './world.js';

/** Relay pagination, forward and backward, over every kind of list the interface pages. */

let w: World;
/** REST ids of the garden's detections, newest first. */
let newestFirst: number[];

const PAGE = `
  totalCount
  edges { cursor node { id } }
  nodes { id }
  pageInfo { startCursor endCursor hasNextPage hasPreviousPage }`;

interface Page {
  totalCount: number;
  edges: { cursor: string; node: { id: string } }[];
  nodes: { id: string }[];
  pageInfo: { startCursor: string | null; endCursor: string | null; hasNextPage: boolean; hasPreviousPage: boolean };
}

async function page(args: string, extra = ''): Promise<Page> {
  const data = await w.data<{ detections: Page }>(
    `{ detections(stationIds: [${w.ids.garden}]${args ? `, ${args}` : ''}) { ${PAGE} ${extra} } }`,
  );
  const p = data.detections;
  expect(p.edges.map((e) => e.node.id)).toEqual(p.nodes.map((n) => n.id));
  expect(p.pageInfo.startCursor).toBe(p.edges[0]?.cursor ?? null);
  expect(p.pageInfo.endCursor).toBe(p.edges.at(-1)?.cursor ?? null);
  return p;
}

const ids = (p: Page) => p.nodes.map((n) => n.id);
const expected = (...positions: number[]) => positions.map((i) => gid('Detection', newestFirst[i]));

beforeAll(async () => {
  w = await startWorld();
  // Posted out of time order, two at the same instant: the list is by timestamp, ties by id.
  const minutes = [30, 10, 50, 0, 20, 20, 40];
  const posted = [];
  for (const [i, m] of minutes.entries()) {
    posted.push({ m, id: (await w.detect('garden', m, i % 2 ? SPECIES.robin : SPECIES.blackbird)).id });
  }
  newestFirst = posted.sort((a, b) => a.m - b.m || b.id - a.id).map((p) => p.id);
});
afterAll(() => w.stop());

describe('detections connection', () => {
  test('pages forward with first/after until the end', async () => {
    const one = await page('first: 3', 'speciesCount');
    expect(ids(one)).toEqual(expected(0, 1, 2));
    expect(one).toMatchObject({ totalCount: 7, speciesCount: 2, pageInfo: { hasNextPage: true, hasPreviousPage: false } });
    const two = await page(`first: 3, after: "${one.pageInfo.endCursor}"`);
    expect(ids(two)).toEqual(expected(3, 4, 5));
    expect(two.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: true });
    const three = await page(`first: 3, after: "${two.pageInfo.endCursor}"`);
    expect(ids(three)).toEqual(expected(6));
    expect(three.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
    expect(three.totalCount).toBe(7);
    const past = await page(`first: 3, after: "${three.pageInfo.endCursor}"`);
    expect(past.nodes).toEqual([]);
    expect(past.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true, startCursor: null });
  });

  test('pages backward with last/before until the start', async () => {
    const one = await page('last: 3');
    expect(ids(one)).toEqual(expected(4, 5, 6));
    expect(one.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
    const two = await page(`last: 3, before: "${one.pageInfo.startCursor}"`);
    expect(ids(two)).toEqual(expected(1, 2, 3));
    expect(two.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: true });
    const three = await page(`last: 3, before: "${two.pageInfo.startCursor}"`);
    expect(ids(three)).toEqual(expected(0));
    expect(three.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
  });

  test('takes both bounds, and first then last when both are given', async () => {
    const all = await page('first: 7');
    const cursors = all.edges.map((e) => e.cursor);
    const between = await page(`after: "${cursors[1]}", before: "${cursors[5]}"`);
    expect(ids(between)).toEqual(expected(2, 3, 4));
    const firstLast = await page('first: 5, last: 2');
    expect(ids(firstLast)).toEqual(expected(3, 4));
    expect(firstLast.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: true });
    const empty = await page('first: 0');
    expect(empty.nodes).toEqual([]);
    expect(empty.pageInfo.hasNextPage).toBe(true);
  });

  test('a cursor stays exact while newer detections arrive', async () => {
    const one = await page('first: 2');
    const fresh = await w.detect('garden', -5);
    try {
      const two = await page(`first: 2, after: "${one.pageInfo.endCursor}"`);
      expect(ids(two)).toEqual(expected(2, 3));
      expect((await page('first: 1')).nodes[0].id).toBe(gid('Detection', fresh.id));
    } finally {
      w.emulator.store.db.prepare('DELETE FROM detections WHERE id = ?').run(fresh.id);
    }
  });

  test('clamps page sizes above 100 to 100 (first and last), as the real service does', async () => {
    // allSpecies lists the ids it is given, repeats included: 150 items, more than a page.
    const catalog = await w.data<{ searchSpecies: { nodes: { id: string }[] } }>(`{ searchSpecies(first: 60) { nodes { id } } }`);
    const ids = [...catalog.searchSpecies.nodes, ...catalog.searchSpecies.nodes, ...catalog.searchSpecies.nodes].slice(0, 150).map((n) => n.id);
    for (const size of [101, 250, 300, 500]) {
      for (const arg of ['first', 'last']) {
        const answer = await w.gql<{ allSpecies: { totalCount: number; nodes: unknown[] } }>(
          `query($ids: [ID!]!) { allSpecies(ids: $ids, ${arg}: ${size}) { totalCount nodes { id } } }`,
          { ids },
        );
        expect(answer.errors).toBeUndefined();
        expect(answer.data?.allSpecies.totalCount).toBe(150);
        expect(answer.data?.allSpecies.nodes).toHaveLength(100);
      }
    }
    const detections = await w.gql<{ detections: { totalCount: number } }>(`{ detections(first: 250) { totalCount } }`);
    expect(detections.errors).toBeUndefined();
  });

  test('refuses negative page sizes and foreign cursors, naming the argument', async () => {
    const negative = await w.gql(`{ detections(last: -1) { totalCount } }`);
    expect(negative.errors?.[0]).toMatchObject({ message: 'last must be 0 or more, got -1', extensions: { code: 'BAD_USER_INPUT' } });
    const stations = await w.data<{ stations: Page }>(`{ stations(first: 1) { ${PAGE} } }`);
    const foreign = await w.gql(`{ detections(after: "${stations.stations.pageInfo.endCursor}") { totalCount } }`);
    expect(foreign.errors?.[0]?.message).toMatch(/^after: ".*" is not a cursor of this list/);
    const garbage = await w.gql(`{ detections(before: "%%%") { totalCount } }`);
    expect(garbage.errors?.[0]?.message).toMatch(/^before: /);
  });
});

describe('other connections', () => {
  test('Station.detections pages both ways like the top-level query', async () => {
    const q = (args: string) =>
      w.data<{ station: { detections: Page } }>(`{ station(id: ${w.ids.garden}) { detections(${args}) { ${PAGE} } } }`);
    const one = (await q('first: 4')).station.detections;
    expect(ids(one)).toEqual(expected(0, 1, 2, 3));
    const back = (await q(`last: 2, before: "${one.pageInfo.endCursor}"`)).station.detections;
    expect(ids(back)).toEqual(expected(1, 2));
    expect(back.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: true });
  });

  test('allSpecies keeps the order of the ids and pages both ways', async () => {
    const species = ['Turdus merula', 'Erithacus rubecula', 'Parus major', 'Pica pica'].map(
      (name) => w.emulator.store.species.byScientificName(name)!.id,
    );
    const list = `[${species.map((id, i) => (i % 2 ? `"${gid('Species', id)}"` : String(id))).join(', ')}, 1]`;
    const q = (args: string) =>
      w.data<{ allSpecies: Page }>(`{ allSpecies(ids: ${list}${args}) { ${PAGE} } }`).then((d) => d.allSpecies);
    const one = await q(', first: 3');
    expect(ids(one)).toEqual(species.slice(0, 3).map((id) => gid('Species', id)));
    expect(one).toMatchObject({ totalCount: 4, pageInfo: { hasNextPage: true, hasPreviousPage: false } });
    const rest = await q(`, first: 3, after: "${one.pageInfo.endCursor}"`);
    expect(ids(rest)).toEqual([gid('Species', species[3])]);
    const back = await q(`, last: 2, before: "${rest.pageInfo.startCursor}"`);
    expect(ids(back)).toEqual(species.slice(1, 3).map((id) => gid('Species', id)));
    expect(back.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: true });
  });

  test('searchSpecies ranks exact, then prefix, then other matches, and pages both ways', async () => {
    const q = (args: string) =>
      w
        .data<{ searchSpecies: Omit<Page, 'nodes'> & { nodes: { id: string; commonName: string }[] } }>(
          `{ searchSpecies(${args}) { totalCount nodes { id commonName } edges { cursor node { id } } pageInfo { startCursor endCursor hasNextPage hasPreviousPage } } }`,
        )
        .then((d) => d.searchSpecies);
    const robin = await q('query: "robin", first: 10');
    expect(robin.nodes.map((n) => n.commonName)).toEqual(['American Robin', 'European Robin']);
    const exact = await q('query: "european robin"');
    expect(exact.nodes.map((n) => n.commonName)).toEqual(['European Robin']);
    const turdus = await q('query: "Turdus", first: 2');
    expect(turdus.totalCount).toBe(3);
    const next = await q(`query: "Turdus", first: 2, after: "${turdus.pageInfo.endCursor}"`);
    expect(next.nodes).toHaveLength(1);
    expect(next.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
    const back = await q(`query: "Turdus", last: 1, before: "${next.pageInfo.endCursor}"`);
    expect(back.nodes.map((n) => n.id)).toEqual([turdus.nodes[1].id]);
    expect(back.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: true });
    const capped = await q('query: "Turdus", limit: 2');
    expect(capped.totalCount).toBe(2);
  });

  test('stations lists public stations by id, both ways', async () => {
    const q = (args: string) =>
      w
        .data<{ stations: Omit<Page, 'nodes'> & { nodes: { id: string; name: string }[] } }>(
          `{ stations${args ? `(${args})` : ''} { totalCount nodes { id name } edges { cursor node { id } } pageInfo { startCursor endCursor hasNextPage hasPreviousPage } } }`,
        )
        .then((d) => d.stations);
    const all = await q('');
    // Hidden (location privacy) and Off (inactive) are not public.
    expect(all.nodes.map((n) => n.name)).toEqual(['Garden', 'Ridge', 'Phone', 'Sensor']);
    const back = await q(`last: 2, before: "${all.edges[3].cursor}"`);
    expect(back.nodes.map((n) => n.name)).toEqual(['Ridge', 'Phone']);
    expect(back.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: true });
    expect((await q('query: "ard"')).nodes.map((n) => n.name)).toEqual(['Garden']);
  });
});
