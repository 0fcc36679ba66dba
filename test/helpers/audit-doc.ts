import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import type { AuditReport, Finding } from '../../src/audit/report.js';
import { REPO_ROOT } from './paths.js';

/** The JSON example in docs/OPERATOR.md, "`station-agent audit --json`": the documented, stable shape. */
export function documentedAuditExample(): AuditReport {
  const doc = readFileSync(path.join(REPO_ROOT, 'docs/OPERATOR.md'), 'utf8');
  const section = doc.slice(doc.indexOf('### `station-agent audit --json`'));
  return JSON.parse(/```json\n([\s\S]*?)```/.exec(section)![1]) as AuditReport;
}

const keys = (o: object) => Object.keys(o).sort();

/**
 * Each finding has the keys of the documented example's finding of its kind, finding and
 * repair (a missing one that was re-queued has no `reason`; one reported has).
 */
export function expectDocumentedFindings(findings: readonly Finding[]): void {
  const example = documentedAuditExample();
  for (const f of findings) {
    const like = example.findings.filter((e) => e.finding === f.finding && (f.finding !== 'missing' || e.repair === f.repair));
    expect(like.length, `docs/OPERATOR.md has an example of a ${f.finding} finding${f.repair ? ` (${f.repair})` : ''}`).toBeGreaterThan(0);
    const expected = keys({ ...like[0], species: '' });
    expect(keys({ ...f, species: '' }), `${f.kind} ${f.finding}`).toEqual(expected);
  }
}
