import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './proc.js';

const UNIT = path.join(REPO_ROOT, 'systemd/station-agent.service');

/**
 * The NODE_OPTIONS the systemd unit gives the agent (`systemd/station-agent.service`), read
 * from the unit itself, or null where it sets none, as it does: a V8 flag there (the heap sizes
 * it once set) would make Node compile its own modules from source at every start
 * (src/system/v8-flags.ts); V8 sizes its heap from the unit's MemoryMax instead. Every figure
 * of a daemon (idle, steady state, the backlog) runs the agent with what the unit sets.
 */
export function unitNodeOptions(unit = UNIT): string | null {
  return unitVariables(unit).NODE_OPTIONS ?? null;
}

/**
 * The unit's `MemoryMax=` in bytes (`256M`): the memory group a station's agent runs in,
 * whose limit Node hands to V8 to size its heap (1 MB semi-spaces under 256 MiB, where this
 * machine's 24 GB would give 16 MB). Throws when the unit sets none.
 */
export function unitMemoryMaxBytes(unit = UNIT): number {
  const m = /^MemoryMax=(\d+)([KMG]?)\s*$/m.exec(readFileSync(unit, 'utf8'));
  if (!m) throw new Error(`${unit} sets no MemoryMax=`);
  return Number(m[1]) * { '': 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3 }[m[2] as '' | 'K' | 'M' | 'G'];
}

/**
 * The environment a daemon of the bench runs in: the one systemd gives the unit's
 * service, not the shell's that started the bench. systemd starts a service with its own
 * short environment (PATH, LANG, HOME of the unit's User=, and the unit's Environment=
 * lines), and a variable of the bench's shell does not reach its daemons either, except the
 * agent's own settings (`STATION_AGENT_*`, to run a section with another value). One
 * matters here: NODE_EXTRA_CA_CERTS (set on this machine) makes every node process parse
 * the system's CA bundle at start: about 40 ms of CPU and 1.8 MB of memory that a
 * station's agent does not spend. The unit's STATION_AGENT_* lines are left out: the bench
 * passes its own `--config`.
 */
export function unitEnvironment(unit = UNIT): NodeJS.ProcessEnv {
  const env = operatorEnvironment();
  for (const [name, value] of Object.entries(unitVariables(unit))) {
    if (!name.startsWith('STATION_AGENT_')) env[name] = value;
  }
  return env;
}

/**
 * The environment of a command an operator types on a station (`station-agent status`,
 * `--version`), of the bare `node -e 0` it is compared with, and the base of the unit's:
 * PATH, HOME, LANG and TMPDIR from the bench's shell and its `STATION_AGENT_*` settings, and
 * none of the variables that change what node itself does at start (NODE_OPTIONS,
 * NODE_EXTRA_CA_CERTS: this machine's adds some 30 ms to every start, the bare node's as
 * much as the CLI's, which made the start-up ratios look better than a station's). A
 * setting given to the bench's own shell reaches its agents, so that a section runs with
 * another value than the default (`STATION_AGENT_UPLOAD_FLAC_COMPRESSION_LEVEL=5 npm run
 * bench -- --only cpu`); the config file stays the bench's.
 */
export function operatorEnvironment(): NodeJS.ProcessEnv {
  const fromShell = ['PATH', 'HOME', 'LANG', 'TMPDIR'].filter((name) => process.env[name] !== undefined);
  const env: NodeJS.ProcessEnv = Object.fromEntries(fromShell.map((name) => [name, process.env[name]]));
  for (const [name, value] of Object.entries(process.env)) {
    if (name.startsWith('STATION_AGENT_') && name !== 'STATION_AGENT_CONFIG' && value !== undefined) env[name] = value;
  }
  return env;
}

/** The unit's `Environment=NAME=value` lines (one assignment each, quoted or not). */
function unitVariables(unit: string): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const line of readFileSync(unit, 'utf8').split('\n')) {
    const m = /^Environment="?([A-Za-z_][A-Za-z0-9_]*)=([^"]*)"?\s*$/.exec(line.trim());
    if (m) vars[m[1]] = m[2].trim();
  }
  return vars;
}
