import releaseLines from './node-release-lines.json' with { type: 'json' };

/**
 * The Node.js release lines and their end of life, kept in node-release-lines.json: the one
 * table of the runtime's support, which doctor's runtime check reads here and bin/install
 * reads with sed before any Node runs (so the file keeps one line per entry). The package's
 * line (packaging/node/package.json) should be one this table shows supported for the
 * package's lifetime. From the Node.js project's release schedule (github.com/nodejs/Release,
 * schedule.json: `end`); odd lines are never LTS and end two months after the next even one
 * starts. A line past its end gets no security fixes. Add the next line when it is released.
 *
 * @example runtimeSupport('20.20.2', Date.parse('2026-12-01')) // { state: 'ended', endOfLife: '2026-04-30', ... }
 */
export interface NodeReleaseLine {
  major: number;
  /** Long-term support (even lines). */
  lts: boolean;
  /** The last day of support, UTC (YYYY-MM-DD). */
  endOfLife: string;
}

export const NODE_RELEASE_LINES: readonly NodeReleaseLine[] = releaseLines;

/** How close to its end a line is said to be ending: a release cycle of the package and a fleet's upgrade. */
export const ENDING_WITHIN_DAYS = 90;

const DAY_MS = 86_400_000;

export interface RuntimeSupport {
  /** The runtime's version, e.g. `20.20.2`. */
  version: string;
  major: number;
  /** The line's entry, or null when the table does not know it. */
  line: NodeReleaseLine | null;
  /** `supported`; `ending` within ENDING_WITHIN_DAYS; `ended`; `unknown` (a line the table does not have). */
  state: 'supported' | 'ending' | 'ended' | 'unknown';
  /** Whole days from `now` to the end of life (negative once past), or null when unknown. */
  daysLeft: number | null;
}

/** The support of the Node.js `version` (default: the running one) on the day of `now`. */
export function runtimeSupport(version: string = process.versions.node, now: number = Date.now()): RuntimeSupport {
  const clean = version.replace(/^v/, '');
  const major = Number.parseInt(clean, 10);
  const line = NODE_RELEASE_LINES.find((l) => l.major === major) ?? null;
  if (!line) return { version: clean, major, line: null, state: 'unknown', daysLeft: null };
  // Supported through the whole end-of-life day (UTC).
  const end = Date.parse(`${line.endOfLife}T00:00:00Z`) + DAY_MS;
  const daysLeft = Math.floor((end - now) / DAY_MS);
  const state = now >= end ? 'ended' : daysLeft <= ENDING_WITHIN_DAYS ? 'ending' : 'supported';
  return { version: clean, major, line, state, daysLeft };
}
