import type { ClockSyncState } from './clock.js';

/** `clock.requireSync`: see the config schema. */
export type RequireSync = 'always' | 'auto' | 'never';

/**
 * The one rule of whether uploads wait for the clock, asked by the daemon (which holds
 * uploads while it says so) and by `doctor` (which fails while it says so):
 * - `never`: the clock is trusted;
 * - `auto`: uploads wait while the system reports the clock unsynchronised; a system
 *   that cannot say (containers, no systemd) is trusted;
 * - `always`: uploads wait until the system reports sync, so `unknown` waits too.
 * Implausible timestamps are held whatever this says (ingest/time-holds.ts).
 *
 * @returns why uploads wait, or null when they may go.
 * @example clockHold('always', 'unknown') // 'the system clock is not synchronised (unknown); ...'
 */
export function clockHold(mode: RequireSync, state: ClockSyncState): string | null {
  if (mode === 'never') return null;
  if (state === 'unsynchronized' || (mode === 'always' && state === 'unknown')) {
    return `the system clock is not synchronised (${state}); uploads wait so that no wrong times are posted`;
  }
  return null;
}
