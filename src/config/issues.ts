import type { z } from 'zod';
import { describeRejected } from '../wire/redact.js';
import { configKeys } from './schema-keys.js';
import { editDistance } from './edit-distance.js';

/**
 * Turns zod issues into one line each, `<key path> <message>`, in the words an operator
 * needs: `input.format must be one of auto, results, analyzerpi (got a string)`,
 * `unknown key input.dirr (did you mean input.dir?)`, `service.baseUrl is required`.
 *
 * The offending value is shown (`got 20`) only when it is a number, a boolean or null;
 * a string is described as "a string", whatever the key: a token pasted into the wrong
 * key (or the wrong environment variable) must never appear in an error message.
 */

export interface IssueContext {
  /** Where the value at a key path came from, e.g. `STATION_AGENT_UPLOAD_CONCURRENCY`; undefined for the file. */
  sourceOf?: (id: string) => string | undefined;
  /** Prepended to every key path (for checking a sub-object such as the station settings). */
  prefix?: readonly string[];
}

type Issue = z.core.$ZodIssue;

const OWN_MESSAGE = /^(must|is|cannot) /;

export function formatIssues(issues: readonly Issue[], context: IssueContext = {}): string[] {
  const lines: string[] = [];
  for (const issue of issues) {
    const path = [...(context.prefix ?? []), ...issue.path.map(String)];
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) lines.push(unknownKey([...path, key]));
      continue;
    }
    const id = path.join('.');
    let line = `${id || '(top level)'} ${describeIssue(issue)}`;
    const source = context.sourceOf?.(id);
    if (source) line += ` (from ${source})`;
    lines.push(line);
  }
  return lines;
}

function describeIssue(issue: Issue): string {
  const got = showsInput(issue) ? ` (got ${describeRejected(offendingValue(issue))})` : '';
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return 'is required';
      return `must be ${typeWords(issue.expected)}${got}`;
    case 'invalid_value':
      return `must be one of ${issue.values.map((v) => String(v)).join(', ')}${got}`;
    case 'too_small':
      return (OWN_MESSAGE.test(issue.message) ? issue.message : `must be at least ${String(issue.minimum)}`) + got;
    case 'too_big':
      return (OWN_MESSAGE.test(issue.message) ? issue.message : `must be at most ${String(issue.maximum)}`) + got;
    case 'invalid_format':
      return (OWN_MESSAGE.test(issue.message) ? issue.message : `must be a valid ${issue.format}`) + got;
    default:
      return (OWN_MESSAGE.test(issue.message) ? issue.message : `is invalid: ${issue.message}`) + got;
  }
}

function showsInput(issue: Issue): boolean {
  if (isSecretPath(issue.path.map(String))) return false;
  const value = offendingValue(issue);
  if (value === undefined) return false;
  return issue.code === 'custom' ? value !== null : true;
}

/**
 * The value at the issue's key. Refinements over a whole object (cross-key checks)
 * report the object as their input: the value shown is then the one at the key named.
 */
function offendingValue(issue: Issue): unknown {
  const input = issue.input;
  if (issue.code === 'custom' && input !== null && typeof input === 'object' && !Array.isArray(input)) {
    const key = issue.path[issue.path.length - 1];
    const value = key === undefined ? undefined : (input as Record<PropertyKey, unknown>)[key];
    return value !== null && typeof value === 'object' ? undefined : value;
  }
  return input !== null && typeof input === 'object' ? undefined : input;
}

function isSecretPath(path: readonly string[]): boolean {
  const last = path[path.length - 1];
  if (last === undefined) return false;
  if (/token$/i.test(last)) return true;
  return configKeys().some((k) => k.meta.secret === true && k.path[k.path.length - 1] === last);
}

function typeWords(expected: string): string {
  switch (expected) {
    case 'boolean':
      return 'true or false';
    case 'object':
      return 'an object';
    case 'int':
      return 'a whole number';
    case 'array':
      return 'a list';
    default:
      return `a ${expected}`;
  }
}

function unknownKey(path: readonly string[]): string {
  const name = path[path.length - 1] ?? '';
  // A key name that does not look like one may be a token pasted in the wrong place: it is
  // described, never printed (config errors reach the journal).
  if (!KEY_NAME.test(name)) return `unknown key ${[...path.slice(0, -1), `<a name of ${name.length} characters>`].join('.')}`;
  const id = path.join('.');
  const hint = suggestKey(path);
  return hint ? `unknown key ${id} (did you mean ${hint}?)` : `unknown key ${id}`;
}

/** What a config key (or a typo of one) looks like: letters, at most a trailing digit or two, not too long. */
const KEY_NAME = /^[A-Za-z][A-Za-z_-]{0,31}[0-9]{0,2}$/;

/** The known key the typo most likely meant: same name elsewhere, or a close sibling. */
function suggestKey(path: readonly string[]): string | undefined {
  const name = path[path.length - 1].toLowerCase();
  const parent = path.slice(0, -1).join('.');
  const known = knownIds();
  const siblings = known.filter((id) => parentOf(id) === parent);
  const closeSibling = siblings
    .map((id) => ({ id, d: editDistance(lastOf(id).toLowerCase(), name) }))
    .filter((c) => c.d <= Math.max(1, Math.floor(name.length / 4)))
    .sort((a, b) => a.d - b.d)[0];
  if (closeSibling) return closeSibling.id;
  return known.find((id) => lastOf(id).toLowerCase() === name);
}

/** Leaf keys and the sections above them. */
function knownIds(): string[] {
  const ids = new Set<string>();
  for (const key of configKeys()) {
    for (let i = 1; i <= key.path.length; i++) ids.add(key.path.slice(0, i).join('.'));
  }
  return [...ids];
}

function parentOf(id: string): string {
  const i = id.lastIndexOf('.');
  return i < 0 ? '' : id.slice(0, i);
}

function lastOf(id: string): string {
  return id.slice(id.lastIndexOf('.') + 1);
}

