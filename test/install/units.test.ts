import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, tempDir } from '../helpers/paths.js';
import { hasCommand } from './commands.js';
import { exposureLevel, verifyUnit } from './systemd-analyze.js';

const UNITS = ['station-agent.service', 'station-agent@.service'];
const unitText = (name: string): string => readFileSync(path.join(REPO_ROOT, 'systemd', name), 'utf8');

/** The sandbox part of a unit: from the "--- Sandbox" comment to [Install]. */
function sandboxSection(text: string): string {
  const start = text.indexOf('# --- Sandbox');
  const end = text.indexOf('[Install]');
  expect(start, 'the unit has a "# --- Sandbox" section').toBeGreaterThan(0);
  return text.slice(start, end);
}

describe('the units as shipped', () => {
  it('the template has the same sandbox as the single-station unit', () => {
    expect(sandboxSection(unitText('station-agent@.service'))).toBe(
      sandboxSection(unitText('station-agent.service')),
    );
  });

  it.each(UNITS)('%s keeps writable-then-executable memory allowed (V8 JIT, WebAssembly)', (name) => {
    expect(unitText(name)).not.toMatch(/^MemoryDenyWriteExecute=(yes|true|1)/m);
  });

  it.each(UNITS)('%s starts as Type=exec with the config under /etc/station-agent', (name) => {
    const text = unitText(name);
    expect(text).toMatch(/^Type=exec$/m);
    expect(text).toMatch(
      /^ExecStart=\/opt\/station-agent\/bin\/station-agent run --config \/etc\/station-agent\/(config|%i)\.json$/m,
    );
  });
});

describe.skipIf(!hasCommand('systemd-analyze'))('systemd-analyze on the units (needs systemd-analyze)', () => {
  const temp = tempDir('station-agent-units-');
  afterAll(() => temp.cleanup());

  it.each(UNITS)('%s: overall exposure level of 2.0 or lower (security --offline=yes)', (name) => {
    const level = exposureLevel(path.join(REPO_ROOT, 'systemd', name));
    expect(level).toBeLessThanOrEqual(2.0);
  });

  it.each(UNITS)('%s: verify reports nothing', (name) => {
    // verify checks that ExecStart= is executable: point it at this tree's executable.
    const file = path.join(temp.dir, name.replace('@.', '@test.'));
    const text = unitText(name).replace(
      '/opt/station-agent/bin/station-agent',
      path.join(REPO_ROOT, 'bin/station-agent'),
    );
    writeFileSync(file, text);
    const { status, output } = verifyUnit(file);
    expect(output).toBe('');
    expect(status).toBe(0);
  });
});
