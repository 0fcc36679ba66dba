import { DateTime } from 'luxon';
import { GraphQLError, Kind, type GraphQLScalarType, type ValueNode } from './graphql-js.js';

/**
 * The custom scalars of the spec's scalar table. `ID` is graphql-js's own: it
 * already accepts a string or an integer on input; the Base64 obfuscation of ids is
 * done by the resolvers (see ids.ts). `Int` is graphql-js's (signed 32-bit).
 */

type ScalarBehaviour = Pick<GraphQLScalarType, 'serialize' | 'parseValue' | 'parseLiteral'>;

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}(:?\d{2})?)$/;

function isCalendarDate(text: string): boolean {
  const m = DATE.exec(text);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

function stringLiteral(node: ValueNode, scalar: string): string {
  if (node.kind !== Kind.STRING) throw new GraphQLError(`${scalar} must be a string, got ${node.kind}`, { nodes: node });
  return node.value;
}

function dateValue(value: unknown): string {
  if (typeof value !== 'string' || !isCalendarDate(value)) {
    throw new GraphQLError(`ISO8601Date must be a date YYYY-MM-DD, got ${JSON.stringify(value)}`);
  }
  return value;
}

/**
 * An ISO8601Date input: a date, or a full ISO 8601 time whose UTC date is used (the
 * periods count whole UTC days, see args/period.ts). Dashboards and generated clients
 * send `2026-06-01T00:00:00.000Z`, or the zero time `0001-01-01T00:00:00Z`, and the
 * real service takes them.
 */
function dateInputValue(value: unknown): string {
  if (typeof value === 'string' && !isCalendarDate(value) && DATE_TIME.test(value)) {
    const date = DateTime.fromISO(value.replace(' ', 'T'), { zone: 'UTC' });
    if (date.isValid) return date.toFormat('yyyy-MM-dd');
  }
  if (typeof value !== 'string' || !isCalendarDate(value)) {
    throw new GraphQLError(`ISO8601Date must be a date YYYY-MM-DD or an ISO 8601 time, got ${JSON.stringify(value)}`);
  }
  return value;
}

function dateTimeValue(value: unknown): string {
  if (typeof value !== 'string' || !DATE_TIME.test(value) || Number.isNaN(Date.parse(value.replace(' ', 'T')))) {
    throw new GraphQLError(`ISO8601DateTime must be an ISO 8601 time with a UTC offset, got ${JSON.stringify(value)}`);
  }
  return value;
}

function bigIntValue(value: unknown): string {
  const text = typeof value === 'bigint' || typeof value === 'number' ? String(value) : value;
  if (typeof text !== 'string' || !/^-?\d+$/.test(text)) {
    throw new GraphQLError(`BigInt must be a whole number (as a string), got ${JSON.stringify(value)}`);
  }
  return text;
}

function speciesCountKeyValue(value: unknown): number | string {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string') return dateTimeValue(value);
  throw new GraphQLError(`SpeciesCountKey must be an hour (Float) or an ISO 8601 timestamp, got ${JSON.stringify(value)}`);
}

function jsonLiteral(node: ValueNode, variables: Record<string, unknown> | null | undefined): unknown {
  switch (node.kind) {
    case Kind.STRING:
    case Kind.BOOLEAN:
      return node.value;
    case Kind.INT:
    case Kind.FLOAT:
      return Number(node.value);
    case Kind.NULL:
      return null;
    case Kind.LIST:
      return node.values.map((v) => jsonLiteral(v, variables));
    case Kind.OBJECT:
      return Object.fromEntries(node.fields.map((f) => [f.name.value, jsonLiteral(f.value, variables)]));
    case Kind.VARIABLE:
      return variables?.[node.name.value];
    default:
      throw new GraphQLError(`JSON cannot hold ${node.kind}`, { nodes: node });
  }
}

export const SCALARS: Record<string, ScalarBehaviour> = {
  BigInt: {
    serialize: bigIntValue,
    parseValue: bigIntValue,
    parseLiteral: (node) => bigIntValue(node.kind === Kind.INT ? node.value : stringLiteral(node, 'BigInt')),
  },
  ISO8601Date: {
    serialize: dateValue,
    parseValue: dateInputValue,
    parseLiteral: (node) => dateInputValue(stringLiteral(node, 'ISO8601Date')),
  },
  ISO8601DateTime: {
    serialize: dateTimeValue,
    parseValue: dateTimeValue,
    parseLiteral: (node) => dateTimeValue(stringLiteral(node, 'ISO8601DateTime')),
  },
  JSON: {
    serialize: (value) => value,
    parseValue: (value) => value,
    parseLiteral: jsonLiteral,
  },
  SpeciesCountKey: {
    serialize: speciesCountKeyValue,
    parseValue: speciesCountKeyValue,
    parseLiteral: (node) =>
      speciesCountKeyValue(node.kind === Kind.INT || node.kind === Kind.FLOAT ? Number(node.value) : stringLiteral(node, 'SpeciesCountKey')),
  },
};
