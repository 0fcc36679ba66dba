import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { configKeys } from '../../src/config/schema-keys.js';
import { keyMatches } from '../../src/daemon/changed-keys.js';
import { appliesAtOnce, RELOAD_AT_ONCE } from '../../src/daemon/reload-keys.js';
import { REPO_ROOT } from '../helpers/paths.js';

/** docs/OPERATOR.md's reload table against src/daemon/reload-keys.ts, key by key of the schema. */
function docRows(): { pattern: string; atOnce: boolean }[] {
  const doc = readFileSync(path.join(REPO_ROOT, 'docs/OPERATOR.md'), 'utf8');
  const section = doc.slice(doc.indexOf('### Reload:'));
  const table = section.slice(section.indexOf('| key | on reload |'));
  const rows: { pattern: string; atOnce: boolean }[] = [];
  for (const line of table.split('\n').slice(2)) {
    const m = /^\| `([^`]+)` \| (at once|restart)\b/.exec(line);
    if (!m) break;
    rows.push({ pattern: m[1], atOnce: m[2] === 'at once' });
  }
  return rows;
}

describe('the reload table', () => {
  const rows = docRows();
  const ids = configKeys().map((k) => k.id);

  it('covers every config key exactly once, and says what the code does with it', () => {
    expect(rows.length).toBeGreaterThan(20);
    for (const id of ids) {
      const matching = rows.filter((r) => keyMatches(r.pattern, id));
      expect(matching.map((r) => r.pattern), id).toHaveLength(1);
      expect(matching[0].atOnce, id).toBe(appliesAtOnce(id));
    }
  });

  it('names no key the schema does not have', () => {
    for (const row of rows) expect(ids.some((id) => keyMatches(row.pattern, id)), row.pattern).toBe(true);
    for (const pattern of RELOAD_AT_ONCE) expect(ids.some((id) => keyMatches(pattern, id)), pattern).toBe(true);
  });
});
