import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  buildClientSchema,
  getIntrospectionQuery,
  isInputObjectType,
  isObjectType,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputField,
  type GraphQLSchema,
  type IntrospectionQuery,
} from 'graphql';
import { startGqlService, type GqlService } from './helpers.js';
import { readSpecTables, type SpecField } from './spec-tables.js';

const spec = readSpecTables();
let service: GqlService;
let schema: GraphQLSchema;

beforeAll(async () => {
  service = await startGqlService();
  schema = buildClientSchema(await service.data<IntrospectionQuery>(getIntrospectionQuery()));
});
afterAll(() => service.stop());

type Member = GraphQLField<unknown, unknown> | GraphQLInputField | GraphQLArgument;

function expectMember(owner: string, member: Member | undefined, expected: SpecField): void {
  expect(member, `${owner}.${expected.name} is missing`).toBeDefined();
  if (expected.type === null) return;
  const accepted = typeof expected.type === 'string' ? [expected.type] : expected.type;
  expect(accepted, `${owner}.${expected.name} has type ${String(member!.type)}`).toContain(String(member!.type));
}

describe('the spec tables as read', () => {
  // Guards the reader: a table it cannot see would make the comparisons below vacuous.
  test('are complete', () => {
    expect(spec.scalars).toEqual(['ID', 'Int', 'Float', 'BigInt', 'ISO8601Date', 'ISO8601DateTime', 'JSON', 'SpeciesCountKey']);
    expect(spec.queries.map((q) => q.name)).toEqual([
      'allSpecies', 'analyzerSightings', 'counts', 'dailyDetectionCounts', 'detections', 'searchSpecies', 'species',
      'station', 'stations', 'timeOfDayDetectionCounts', 'topAnalyzerSpecies', 'topSpecies',
    ]);
    expect(spec.types).toHaveLength(24);
    expect(spec.types.find((t) => t.name === 'Station')!.fields).toHaveLength(31);
    expect(spec.queries.find((q) => q.name === 'detections')!.args).toHaveLength(35);
    expect(spec.subscription.args).toHaveLength(22);
  });
});

describe('the served schema (introspection over HTTP)', () => {
  test('has every scalar of the spec', () => {
    for (const name of spec.scalars) expect(schema.getType(name), name).toBeDefined();
  });

  test.each(spec.types.map((t) => [t.name, t] as const))('has type %s with every field and its type', (_name, type) => {
    const served = schema.getType(type.name);
    expect(served, `type ${type.name} is missing`).toBeDefined();
    expect(type.input ? isInputObjectType(served) : isObjectType(served), `${type.name} is an ${type.input ? 'input' : 'object'} type`).toBe(true);
    const fields = (served as { getFields(): Record<string, Member> }).getFields();
    for (const field of type.fields) expectMember(type.name, fields[field.name], field);
  });

  test.each(spec.queries.map((q) => [q.name, q] as const))('has query %s with every argument and its return type', (_name, query) => {
    const field = schema.getQueryType()!.getFields()[query.name];
    expect(field, `Query.${query.name} is missing`).toBeDefined();
    expect(String(field.type)).toBe(query.returns);
    for (const arg of query.args) expectMember(`Query.${query.name}`, field.args.find((a) => a.name === arg.name), arg);
  });

  test('has the subscription newDetection with every argument', () => {
    const field = schema.getSubscriptionType()!.getFields()[spec.subscription.name];
    expect(field).toBeDefined();
    expect(String(field.type)).toBe(spec.subscription.returns);
    for (const arg of spec.subscription.args) expectMember('Subscription.newDetection', field.args.find((a) => a.name === arg.name), arg);
    expect(String((schema.getType('NewDetectionPayload') as { getFields(): Record<string, Member> }).getFields().detection.type)).toBe('Detection!');
  });

  // "Every XConnection has: edges [XEdge], nodes [X], pageInfo PageInfo!, totalCount Int!.
  // DetectionConnection adds speciesCount Int!. Every edge has cursor String! and node X."
  test('gives every connection the spec shape', () => {
    const connections = Object.values(schema.getTypeMap()).filter((t) => isObjectType(t) && t.name.endsWith('Connection'));
    expect(connections.length).toBeGreaterThanOrEqual(10);
    for (const connection of connections) {
      const x = connection.name.replace(/Connection$/, '');
      const fields = (connection as { getFields(): Record<string, Member> }).getFields();
      expectMember(connection.name, fields.edges, { name: 'edges', type: `[${x}Edge]` });
      expectMember(connection.name, fields.nodes, { name: 'nodes', type: `[${x}]` });
      expectMember(connection.name, fields.pageInfo, { name: 'pageInfo', type: 'PageInfo!' });
      expectMember(connection.name, fields.totalCount, { name: 'totalCount', type: 'Int!' });
      const edge = (schema.getType(`${x}Edge`) as { getFields(): Record<string, Member> }).getFields();
      expectMember(`${x}Edge`, edge.cursor, { name: 'cursor', type: 'String!' });
      expectMember(`${x}Edge`, edge.node, { name: 'node', type: x });
    }
    const detections = (schema.getType('DetectionConnection') as { getFields(): Record<string, Member> }).getFields();
    expectMember('DetectionConnection', detections.speciesCount, { name: 'speciesCount', type: 'Int!' });
  });

  test('describes the types whose fields the spec does not show', () => {
    for (const name of ['Coordinates', 'InputLocation', 'Count', 'Probability', 'StationCounts', 'StationCount', 'SummarySpeciesCount', 'SpeciesTranslation']) {
      expect(schema.getType(name)?.description, name).toMatch(/spec does not show/);
    }
    const coords = (schema.getType('Coordinates') as { getFields(): Record<string, Member> }).getFields();
    expect(Object.fromEntries(Object.entries(coords).map(([k, f]) => [k, String(f.type)]))).toEqual({ lat: 'Float!', lon: 'Float!' });
    const translation = (schema.getType('SpeciesTranslation') as { getFields(): Record<string, Member> }).getFields();
    expect(String(translation.locale.type)).toBe('String!');
  });
});
