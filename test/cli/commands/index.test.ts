import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { COMMANDS, commandsFor } from '../../../src/cli/commands/index.js';

/** The top-level commands a list of registrations adds to a fresh program, in order. */
function registered(registrations: ((program: Command) => void)[]): string[] {
  const program = new Command('station-agent');
  for (const register of registrations) register(program);
  return program.commands.map((c) => c.name());
}

const argv = (...args: string[]) => ['node', 'station-agent', ...args];

describe('the command table', () => {
  it("names each command as its definition module registers it, and nothing else: the name picks the module to load", async () => {
    for (const entry of COMMANDS) expect(registered([await entry.load()]), entry.name).toEqual([entry.name]);
  });

  it('a command named first loads its definition alone', async () => {
    expect(registered(await commandsFor(argv('run', '--config', 'x.json')))).toEqual(['run']);
    expect(registered(await commandsFor(argv('queue', 'list', '--json')))).toEqual(['queue']);
  });

  it('the version flag first loads no command: commander prints the version and exits', async () => {
    expect(registered(await commandsFor(argv('--version')))).toEqual([]);
    expect(registered(await commandsFor(argv('-V', 'run')))).toEqual([]);
  });

  it('help, no command or an unknown name load every command (help lists them, commander suggests the near name)', async () => {
    const all = COMMANDS.map((c) => c.name);
    for (const args of [[], ['--help'], ['help', 'run'], ['rnu'], ['--config', 'run']]) {
      expect(registered(await commandsFor(argv(...args))), args.join(' ')).toEqual(all);
    }
  });
});
