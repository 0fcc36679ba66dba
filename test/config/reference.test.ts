import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderConfigReference } from '../../src/config/reference.js';
import { configKeys } from '../../src/config/schema-keys.js';
import { REPO_ROOT } from '../helpers/paths.js';

const DOC = path.join(REPO_ROOT, 'docs/CONFIGURATION.md');

describe('configuration reference', () => {
  it('lists every key with its variable, default and description', () => {
    const text = renderConfigReference();
    for (const key of configKeys()) {
      expect(text, key.id).toContain(`| \`${key.id}\`<br>\`${key.envName}\` |`);
    }
    expect(text).toContain(
      '| `upload.concurrency`<br>`STATION_AGENT_UPLOAD_CONCURRENCY` | integer, 1 to 16 | `4` | `4` | Most requests in flight at once',
    );
    expect(text).toContain('| `input.format`<br>`STATION_AGENT_INPUT_FORMAT` | `auto` \\| `results` \\| `analyzerpi` | `"auto"` |');
    expect(text).toContain("| `station.timezone`<br>`STATION_AGENT_STATION_TIMEZONE` | IANA time zone | the system's time zone |");
    expect(text).toContain('| `service.baseUrl`<br>`STATION_AGENT_SERVICE_BASE_URL` | URL | **required** |');
    expect(text).toContain('| `input.labels`<br>`STATION_AGENT_INPUT_LABELS` | path or `null` | `null` |');
  });

  it('is what docs/CONFIGURATION.md holds (UPDATE_DOCS=1 rewrites it)', () => {
    const text = renderConfigReference();
    if (process.env.UPDATE_DOCS === '1') writeFileSync(DOC, text);
    const committed = readFileSync(DOC, 'utf8');
    expect(committed, 'docs/CONFIGURATION.md is out of date: run UPDATE_DOCS=1 npx vitest run test/config/reference.test.ts').toBe(
      text,
    );
  });
});
