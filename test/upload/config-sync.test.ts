import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { getMeta } from '../../src/queue/index.js';
import { createAgentWorld, TOKEN, type AgentWorld } from '../helpers/agent-world.js';
import { until } from '../helpers/until.js';

let world: AgentWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});


describe('config sync', () => {
  it('pushes station.settings on start and again when the config file is replaced, and stores the station record', async () => {
    world = await createAgentWorld({
      config: { station: { settings: { name: 'Garden', minConfidence: 0.8, minHumanConfidence: 0.05 } } },
    });
    const stationAt = () => world!.emulator.store.stations.byToken(TOKEN)!;
    const daemon = await world.startAgent();
    await until('the first push', () => stationAt().name === 'Garden' && stationAt().minConfidence === 0.8);
    expect(stationAt().minHumanConfidence).toBe(0.05);
    await until('the station record', () => getMeta(daemon.queue, 'station') !== undefined);
    const stored = getMeta(daemon.queue, 'station')!;
    expect(stored.record).toMatchObject({ id: stationAt().id, name: 'Garden', minConfidence: 0.8 });

    // An editor saves by writing a new file and renaming it over the old one.
    const config = JSON.parse(readFileSync(world.configPath, 'utf8'));
    config.station.settings.minConfidence = 0.9;
    writeFileSync(`${world.configPath}.tmp`, JSON.stringify(config), { mode: 0o600 });
    renameSync(`${world.configPath}.tmp`, world.configPath);
    await until('the second push', () => stationAt().minConfidence === 0.9);
    expect(world.logLines.some((l) => l.includes('config file changed'))).toBe(true);
  });
});

describe('config sync with a refused token', () => {
  it('keeps the settings and pushes them once the service accepts the token again', async () => {
    world = await createAgentWorld({ config: { station: { settings: { name: 'Meadow' } }, upload: { backoffMaxMs: 1_000 } } });
    const station = world.emulator.store.stations.byToken(TOKEN)!;
    world.emulator.store.stations.update(station.id, { active: false });
    await world.startAgent();
    // Two pushes refused (the first and its retry): the name must still be the old one.
    await until('two refused pushes', () => world!.logLines.filter((l) => l.includes('config sync failed, will retry')).length >= 2);
    expect(world.emulator.store.stations.byId(station.id)!.name).not.toBe('Meadow');
    world.emulator.store.stations.update(station.id, { active: true });
    await until('the push after the token is accepted', () => world!.emulator.store.stations.byId(station.id)!.name === 'Meadow');
  });
});
