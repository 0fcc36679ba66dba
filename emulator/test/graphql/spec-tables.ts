import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../../../test/helpers/paths.js';

/**
 * Reads the GraphQL parts of the interface spec (`../shared/spec/service-interface.md`):
 * the scalar table, the object type table, the query table, filter group F and the
 * subscription line. The schema test compares the served schema with what comes out
 * of here, so a change to the spec shows up as a failing test.
 */

export const SPEC_FILE = path.resolve(REPO_ROOT, '../shared/spec/service-interface.md');

/** A field or argument: `type` is the exact type text, a list of accepted ones ("numeric"), or null (not shown). */
export interface SpecField {
  name: string;
  type: string | readonly string[] | null;
}

export interface SpecType {
  name: string;
  input: boolean;
  fields: SpecField[];
}

export interface SpecOperation {
  name: string;
  args: SpecField[];
  returns: string;
}

export interface SpecTables {
  scalars: string[];
  types: SpecType[];
  queries: SpecOperation[];
  subscription: SpecOperation;
}

const NUMERIC = ['Float', 'Int'] as const;

/** Splits on `;` outside parentheses. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of text) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ';' && depth === 0) {
      parts.push(current.trim());
      current = '';
    } else current += ch;
  }
  if (current.trim()) parts.push(current.trim());
  return parts;
}

function tableRows(markdown: string, header: string): string[][] {
  const lines = markdown.split('\n');
  const start = lines.findIndex((l) => l.startsWith(header));
  if (start < 0) throw new Error(`spec table ${header} not found in ${SPEC_FILE}`);
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(line.split('|').slice(1, -1).map((c) => c.trim()));
  }
  return rows;
}

const TYPE_TOKEN = /^\s*(\[?[A-Za-z_][A-Za-z0-9_]*!?\]?!?)/;

function typeFromNote(note: string | undefined): SpecField['type'] {
  if (note === 'numeric') return NUMERIC;
  if (note === 'integers') return 'Int';
  return null;
}

/** One `name: Type (note)` or `a, b, c: Type` or `a, b (numeric)` item of the type table. */
function parseFieldItem(item: string): SpecField[] {
  const note = /\(([^)]*)\)\s*$/.exec(item)?.[1];
  const colon = item.indexOf(':');
  if (colon < 0) {
    const names = item.replace(/\([^)]*\)/g, '').split(',').map((n) => n.trim()).filter(Boolean);
    return names.map((name) => ({ name, type: typeFromNote(note) }));
  }
  const names = item.slice(0, colon).split(',').map((n) => n.trim());
  const rest = item.slice(colon + 1).trim();
  const type: SpecField['type'] = rest.startsWith('numeric') ? NUMERIC : (TYPE_TOKEN.exec(rest)?.[1] ?? null);
  return names.map((name) => ({ name, type }));
}

/** The Sensors row is prose: `latest readings a: A, ...; histories aHistory, ..., each a connection (AConnection, ...), non-null`. */
function parseSensors(cell: string): SpecField[] {
  const latest = [...cell.matchAll(/(\w+): (\w+Reading)\b/g)].map((m) => ({ name: m[1], type: m[2] }));
  const histories = [...cell.matchAll(/\b(\w+History)\b/g)].map((m) => m[1]);
  const connections = [...cell.matchAll(/\b(\w+ReadingConnection)\b/g)].map((m) => m[1]);
  if (histories.length !== connections.length) throw new Error('Sensors row: histories and connections do not pair up');
  return [...latest, ...histories.map((name, i) => ({ name, type: `${connections[i]}!` }))];
}

function parseTypes(markdown: string): SpecType[] {
  const types: SpecType[] = [];
  for (const [nameCell = '', fieldsCell = ''] of tableRows(markdown, '| Type | Fields (name: type) |')) {
    const input = /\(input\)/.test(nameCell);
    const names = nameCell.replace(/\(input\)/, '').split(',').map((n) => n.trim());
    const fields = names[0] === 'Sensors' ? parseSensors(fieldsCell) : splitTopLevel(fieldsCell).flatMap(parseFieldItem);
    for (const name of names) types.push({ name, input, fields });
  }
  return types;
}

const PAGE_ARGS: SpecField[] = [
  { name: 'after', type: 'String' },
  { name: 'before', type: 'String' },
  { name: 'first', type: 'Int' },
  { name: 'last', type: 'Int' },
];

/** Types the query table names without writing them out (the period and box paragraphs say which). */
const IMPLIED: Record<string, string> = { period: 'InputDuration', ne: 'InputLocation', sw: 'InputLocation' };

function filterGroupF(markdown: string): SpecField[] {
  const line = markdown.split('\n').find((l) => l.startsWith('Filter argument group F:'));
  if (!line) throw new Error('filter group F paragraph not found');
  const head = line.split('Box arguments')[0];
  return [...head.matchAll(/`(\w+)`/g)].map((m) => ({ name: m[1], type: m[1].startsWith('timeOfDay') ? 'Int' : 'Float' }));
}

function parseArgs(cell: string, groupF: SpecField[]): SpecField[] {
  const args: SpecField[] = [];
  for (const item of splitTopLevel(cell.replace(/, (?=`|group F)/g, "; "))) {
    if (/^(cursors|after\/before)\/first\/last$/.test(item)) args.push(...PAGE_ARGS);
    else if (item === 'group F') args.push(...groupF);
    else {
      const m = /^`(\w+)`\s*(.*)$/.exec(item);
      if (!m) throw new Error(`cannot read argument item ${JSON.stringify(item)}`);
      const token = TYPE_TOKEN.exec(m[2])?.[1];
      const type = token && /^\[?[A-Z]/.test(token) ? token : (IMPLIED[m[1]] ?? null);
      args.push({ name: m[1], type });
    }
  }
  return args;
}

export function readSpecTables(file = SPEC_FILE): SpecTables {
  const markdown = readFileSync(file, 'utf8');
  const groupF = filterGroupF(markdown);
  const scalars = tableRows(markdown, '| Scalar | Meaning |').map((r) => r[0].split(',').map((s) => s.trim())).flat();
  const queries = tableRows(markdown, '| Query | Arguments | Returns |').map(([name = '', args = '', returns = '']) => ({
    name,
    args: parseArgs(args, groupF),
    returns: TYPE_TOKEN.exec(returns)![1],
  }));
  const line = markdown.split('\n').find((l) => l.startsWith('Subscription `newDetection`'));
  if (!line) throw new Error('subscription line not found');
  const argsText = /arguments (.*)\. Returns/.exec(line)![1];
  const subscription: SpecOperation = {
    name: 'newDetection',
    args: parseArgs(argsText, groupF),
    returns: /Returns (\S+)/.exec(line)![1],
  };
  return { scalars, types: parseTypes(markdown), queries, subscription };
}
