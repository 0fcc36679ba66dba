import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createAgentWorld, type AgentWorld } from '../helpers/agent-world.js';
import { until } from '../helpers/until.js';

/** Issue 35: a folder whose name is not UTF-8 was skipped without a word. */
let world: AgentWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe('a folder whose name is not valid UTF-8', () => {
  it('is named in an error (with U+FFFD), once', async () => {
    world = await createAgentWorld();
    // "2025-\xff" as the analyzer's old locale might have written it.
    mkdirSync(Buffer.concat([Buffer.from(`${world.inputDir}/2025-`), Buffer.from([0xff])]));
    await world.startAgent();
    const shown = path.join(world.inputDir, '2025-\uFFFD');
    const said = () => world!.logLines.filter((l) => l.includes(`${shown}: its name is not valid UTF-8`) && l.includes('rename the folder'));
    await until('the folder named', () => said().length > 0, 20_000, () => world!.logLines.slice(-20).join('\n'));
    expect(said()).toHaveLength(1);
  }, 60_000);
});
