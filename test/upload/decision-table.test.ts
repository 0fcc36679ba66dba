import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { HttpStatusError, NetworkError, OutcomeUnknownError, ServiceRejectedError } from '../../src/api/errors.js';
import { AudioFileError } from '../../src/audio/errors.js';
import { decide, type Decision } from '../../src/upload/decide.js';
import { REPO_ROOT } from '../helpers/paths.js';

/**
 * docs/ARCHITECTURE.md's "The uploader's decisions" against `decide()`: every row is run
 * through the function, and every HTTP status from 300 to 599 (with and without an HTML
 * body, for a soundscape and a detection) is decided both by the function and by the
 * table's first matching row. The table is the documentation; this keeps it true.
 */
type Kind = 'recording' | 'detection';
interface Row {
  failure: string;
  decision: string;
}

const REQ = 'POST /api/v1/stations/<redacted>/detections';

function tableRows(): Row[] {
  const doc = readFileSync(path.join(REPO_ROOT, 'docs/ARCHITECTURE.md'), 'utf8');
  const section = doc.split("## The uploader's decisions")[1]?.split('\n## ')[0];
  if (!section) throw new Error("docs/ARCHITECTURE.md has no section \"The uploader's decisions\"");
  return section
    .split('\n')
    .filter((line) => line.startsWith('| ') && !line.startsWith('| failure') && !line.startsWith('|---'))
    .map((line) => {
      const [failure, decision] = line.split('|').slice(1, 3).map((cell) => cell.trim());
      return { failure, decision };
    });
}

/** The decision in the table's words. */
function summary(d: Decision): string {
  switch (d.action) {
    case 'retry': {
      const why = [d.serviceDown && 'service down', d.throttle && 'throttle'].filter(Boolean);
      return why.length ? `retry (${why.join(', ')})` : 'retry';
    }
    case 'pause':
      return d.scope === 'station' ? 'pause station' : 'pause soundscapes';
    case 'unknown':
      return d.serviceDown ? 'unknown (service down)' : 'unknown';
    default:
      return d.action;
  }
}

interface HttpCase {
  status: number;
  html: boolean;
  kind: Kind;
}

/** Does an `HTTP ...` row apply to this answer? `HTTP 5xx`, `HTTP 502, 504`, `HTTP 3xx or 4xx, HTML page`, `HTTP 415, soundscape`. */
function httpRowMatches(failure: string, c: HttpCase): boolean {
  const m = /^HTTP (.+?)(?:, (HTML page|soundscape|detection))?$/.exec(failure);
  if (!m) return false;
  const [, statuses, qualifier] = m;
  if (qualifier === 'HTML page' && !c.html) return false;
  if (qualifier === 'soundscape' && c.kind !== 'recording') return false;
  if (qualifier === 'detection' && c.kind !== 'detection') return false;
  return statuses.split(/, | or /).some((s) => (/^\dxx$/.test(s) ? Math.floor(c.status / 100) === Number(s[0]) : Number(s) === c.status));
}

function httpError(c: HttpCase): HttpStatusError {
  return new HttpStatusError(REQ, { status: c.status, body: null, serverMessage: undefined, errors: undefined, html: c.html, retryAfterMs: undefined });
}

/** An error of the kind a non-HTTP row names. */
function errorFor(failure: string): Error {
  switch (failure) {
    case '`ERR_NETWORK_BEFORE_SEND`':
      return new NetworkError('connect ECONNREFUSED', REQ, 'ECONNREFUSED');
    case '`ERR_OUTCOME_UNKNOWN`':
      return new OutcomeUnknownError('headers timeout', REQ);
    case '`ERR_SERVICE_REJECTED`':
      return new ServiceRejectedError('created without an id', REQ, 201, { success: true, id: null }, 'detection.id');
    case '`SQLITE_*`':
      return Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
    case 'a transient local error':
      // One of the register's transient codes (src/errors.ts): here the system's.
      return Object.assign(new Error('too many open files'), { code: 'EMFILE' });
    case 'any other local error':
      return new AudioFileError('/spool/r1.wav', 'not-riff', 'not a WAV file');
    default:
      throw new Error(`the decision table has a row the test cannot build an error for: ${failure}`);
  }
}

describe("docs/ARCHITECTURE.md: the uploader's decisions", () => {
  const rows = tableRows();

  it('has rows for the error codes and the HTTP answers', () => {
    expect(rows.filter((r) => !r.failure.startsWith('HTTP')).length).toBeGreaterThanOrEqual(5);
    expect(rows.filter((r) => r.failure.startsWith('HTTP')).length).toBeGreaterThanOrEqual(8);
  });

  it.each(rows.filter((r) => !r.failure.startsWith('HTTP')))('$failure: $decision', (row) => {
    for (const kind of ['recording', 'detection'] as const) expect(summary(decide(errorFor(row.failure), kind))).toBe(row.decision);
  });

  it('decides every HTTP status from 300 to 599 as its first matching row says', () => {
    const httpRows = rows.filter((r) => r.failure.startsWith('HTTP'));
    const mismatches: string[] = [];
    for (let status = 300; status < 600; status++) {
      for (const html of [false, true]) {
        for (const kind of ['recording', 'detection'] as const) {
          const c = { status, html, kind };
          const row = httpRows.find((r) => httpRowMatches(r.failure, c));
          const actual = summary(decide(httpError(c), kind));
          if (!row) mismatches.push(`${status}${html ? ' html' : ''} ${kind}: no row (decide: ${actual})`);
          else if (row.decision !== actual) mismatches.push(`${status}${html ? ' html' : ''} ${kind}: row "${row.failure}" says ${row.decision}, decide: ${actual}`);
        }
      }
    }
    expect(mismatches).toEqual([]);
  });
});
