import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './proc.js';

const UNIT = path.join(REPO_ROOT, 'systemd/station-agent.service');

/**
 * The NODE_OPTIONS the systemd unit gives the agent (`systemd/station-agent.service`),
 * read from the unit itself, so that every figure of a daemon (idle, steady state, the
 * backlog) is of the agent as a station runs it, and a V8 flag is kept only when the
 * unit and the bench both use it. Throws when the unit sets none: a bench that silently
 * ran the agent without them would measure another program.
 */
export function unitNodeOptions(unit = UNIT): string {
  const value = unitVariables(unit).NODE_OPTIONS;
  if (value === undefined) throw new Error(`${unit} sets no Environment=NODE_OPTIONS=`);
  return value;
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
  if (env.NODE_OPTIONS === undefined) throw new Error(`${unit} sets no Environment=NODE_OPTIONS=`);
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
