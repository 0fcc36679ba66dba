import { existsSync } from 'node:fs';
import path from 'node:path';
import { Labels } from '../../src/ingest/labels.js';
import { unknownConfigNames } from '../../src/policy/name-check.js';
import { REAL_FIXTURES } from './flac.js';
import { figure, median, type Figure } from './report.js';

/**
 * Names: what 500 filter and privacy names that the labels do not know cost at a start and
 * at `config validate` (issue 35): the real labels file (about 13,000 names), each unknown
 * name a label with a typo or two, or a word no label is near, so that each gets its
 * suggestion or proves it has none. Timed in this process, the index's build included
 * (fresh labels each run): the median of 5.
 */
const NAMES = 500;
const RUNS = 5;
const LABELS = path.join(REAL_FIXTURES, 'birdnet-analyzer_labels_V2.4', 'BirdNET_GLOBAL_6K_V2.4_Labels.txt');

export async function runNames(_options: unknown, _dir: string, log: (line: string) => void): Promise<Figure[]> {
  if (!existsSync(LABELS)) {
    log('names: not measured: the real labels file is not beside the checkout (../shared/fixtures/real)');
    return [figure({ id: 'names.suggest500', name: `names: ${NAMES} unknown filter names checked`, value: null, unit: 'ms' })];
  }
  const names = unknownNames(await Labels.load(LABELS));
  const times: number[] = [];
  const cpu: number[] = [];
  let suggested = 0;
  for (let run = 0; run < RUNS; run++) {
    const labels = await Labels.load(LABELS);
    const config = { privacy: { humanClasses: [] }, filters: { nonBirdClasses: [], include: names, exclude: [], speciesMinConfidence: {} } };
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const unknown = unknownConfigNames(config as unknown as Parameters<typeof unknownConfigNames>[0], labels);
    times.push(performance.now() - t0);
    cpu.push(process.cpuUsage(c0).user / 1000);
    if (unknown.length !== NAMES) throw new Error(`${unknown.length} of ${NAMES} names reported unknown`);
    suggested = unknown.filter((u) => u.suggestion !== undefined).length;
  }
  log(`names: ${NAMES} unknown names checked in median ${median(times).toFixed(1)} ms (runs ${times.map((t) => t.toFixed(1)).join(', ')}; CPU ${median(cpu).toFixed(1)} ms); ${suggested} with a suggestion`);
  return [
    figure({
      id: 'names.suggest500',
      name: `names: ${NAMES} unknown filter names checked against the labels (${suggested} with a suggestion)`,
      value: median(times),
      unit: 'ms',
      digits: 1,
      target: { op: '<=', value: 50 },
      detail: { names: NAMES, suggested, runsMs: times, cpuMs: cpu },
    }),
  ];
}

/** Labels with one or two typos (a letter swapped, dropped or doubled), and every fifth a made-up word. */
function unknownNames(known: Labels): string[] {
  const labels = [...known.names()];
  let seed = 35;
  const next = (n: number) => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) % n;
  const out = new Set<string>();
  while (out.size < NAMES) {
    let name: string;
    if (out.size % 5 === 4) {
      name = Array.from({ length: 6 + next(14) }, () => 'abcdefghijklmnopqrstuvwxyz'[next(26)]).join('');
    } else {
      const chars = labels[next(labels.length)].split('');
      for (let edits = 1 + next(2); edits > 0; edits--) {
        const at = next(chars.length - 1);
        const op = next(3);
        if (op === 0) [chars[at], chars[at + 1]] = [chars[at + 1], chars[at]];
        else if (op === 1) chars.splice(at, 1);
        else chars.splice(at, 0, chars[at]);
      }
      name = chars.join('');
    }
    if (!known.knows(name)) out.add(name);
  }
  return [...out];
}
