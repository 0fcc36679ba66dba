import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './proc.js';

/**
 * The NODE_OPTIONS the systemd unit gives the agent (`systemd/station-agent.service`),
 * read from the unit itself, so that every figure of a daemon (idle, steady state, the
 * backlog) is of the agent as a station runs it, and a V8 flag is kept only when the
 * unit and the bench both use it. Throws when the unit sets none: a bench that silently
 * ran the agent without them would measure another program.
 */
export function unitNodeOptions(unit = path.join(REPO_ROOT, 'systemd/station-agent.service')): string {
  for (const line of readFileSync(unit, 'utf8').split('\n')) {
    const m = /^Environment="?NODE_OPTIONS=([^"]*)"?\s*$/.exec(line.trim());
    if (m) return m[1].trim();
  }
  throw new Error(`${unit} sets no Environment=NODE_OPTIONS=`);
}
