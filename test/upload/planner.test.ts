import { describe, expect, it } from 'vitest';
import type { LinkVerdict } from '../../src/upload/link-policy.js';
import { claimPlan, gatePass, idleWait, type ClaimInput, type ClaimStep, type GateInput, type GateVerdict } from '../../src/upload/planner.js';

/**
 * The uploader's claim planner (src/upload/planner.ts) as a pure function, from tables:
 * the limits' verdicts and the free slots in, the verdict or the claims out. The claims
 * run against a supply of due items (how many of each kind the queue would hand over),
 * as the uploader runs them against the queue.
 */
const NOW = 1_000_000;
const IDLE = 60_000;

const open: LinkVerdict = { uploads: true, audio: true, held: null, changesAt: null, changesInMs: null };
const closed = (changesInMs: number | null): LinkVerdict => ({ uploads: false, audio: false, held: 'outside the upload windows', changesAt: null, changesInMs });
const audioHeld: LinkVerdict = { uploads: true, audio: false, held: 'the data budget is spent', changesAt: null, changesInMs: 4_000 };

const gateBase: GateInput = { now: NOW, probeIntervalMs: IDLE, held: false, tokenProbing: false, circuit: 'closed', circuitRetryAt: 0, freeSlots: 4 };

const gateRows: [string, Partial<GateInput>, GateVerdict][] = [
  ['nothing in the way: every free slot', {}, { claim: true, slots: 4, probe: false, link: undefined }],
  ['the link open: its verdict goes with the claim', { link: audioHeld, freeSlots: 3 }, { claim: true, slots: 3, probe: false, link: audioHeld }],
  ['the clock holds uploads: asked again after 30 s', { held: true }, { claim: false, waitMs: 30_000 }],
  ['the clock holds, a short probe interval', { held: true, probeIntervalMs: 10_000 }, { claim: false, waitMs: 10_000 }],
  ['the clock before everything else', { held: true, link: closed(5), tokenPause: { probeAt: 0 }, circuit: 'open' }, { claim: false, waitMs: 30_000 }],
  ['the window closed: until it opens', { link: closed(5_000) }, { claim: false, waitMs: 5_000 }],
  ['the window closed for good: the probe interval', { link: closed(null) }, { claim: false, waitMs: IDLE }],
  ['the window opens in 3 ms: at least 10', { link: closed(3) }, { claim: false, waitMs: 10 }],
  ['the window before a refused token', { link: closed(7_000), tokenPause: { probeAt: 0 } }, { claim: false, waitMs: 7_000 }],
  ['a refused token, its probe in 20 s', { tokenPause: { probeAt: NOW + 20_000 } }, { claim: false, waitMs: 20_000 }],
  ['a refused token, its probe due: probe it', { tokenPause: { probeAt: NOW - 1 } }, { claim: false, waitMs: 1_000, probeToken: true }],
  ['a refused token, its probe out already', { tokenPause: { probeAt: NOW - 1 }, tokenProbing: true }, { claim: false, waitMs: 1_000 }],
  ['a refused token before the circuit', { tokenPause: { probeAt: NOW + 2_000 }, circuit: 'open', circuitRetryAt: NOW + 9_000 }, { claim: false, waitMs: 2_000 }],
  ['the circuit open: until its probe may go', { circuit: 'open', circuitRetryAt: NOW + 7_000 }, { claim: false, waitMs: 7_000 }],
  ['the circuit open, its time past: at least 10', { circuit: 'open', circuitRetryAt: NOW - 5 }, { claim: false, waitMs: 10 }],
  ['no free slot', { freeSlots: 0 }, { claim: false, waitMs: IDLE }],
  ['encodes took more than the free slots', { freeSlots: -1 }, { claim: false, waitMs: IDLE }],
  ['the circuit half-open: one slot, and the probe permit', { circuit: 'half-open' }, { claim: true, slots: 1, probe: true, link: undefined }],
];

describe('gatePass: whether a pass may claim', () => {
  it.each(gateRows)('%s', (_name, input, verdict) => {
    expect(gatePass({ ...gateBase, ...input })).toEqual(verdict);
  });
});

interface Supply {
  encoded?: number;
  recordings?: number;
  wavs?: number;
  detections?: number;
}

/** Runs the plan against the supply: each claim takes what it may of what is due. */
function run(input: ClaimInput, supply: Supply): { steps: string[]; tally: ReturnType<typeof tallyOf> } {
  const left = { encoded: 0, recordings: 0, wavs: 0, detections: 0, ...supply };
  const take = (kind: keyof typeof left, limit: number) => {
    const n = Math.min(limit, left[kind]);
    left[kind] -= n;
    return n;
  };
  const answer = (s: ClaimStep): number => {
    switch (s.step) {
      case 'discard-encoded':
        left.encoded = 0;
        return 0;
      case 'encoded':
        return take('encoded', s.limit);
      case 'recordings':
        return take('recordings', s.limit);
      case 'encode':
        return take('wavs', s.limit);
      case 'detections':
        return take('detections', s.limit);
    }
  };
  const steps: string[] = [];
  const plan = claimPlan(input);
  let next = plan.next();
  while (!next.done) {
    const s = next.value;
    steps.push(s.step === 'discard-encoded' ? s.step : 'order' in s ? `${s.step} ${s.limit} ${s.order}` : `${s.step} ${s.limit}`);
    next = plan.next(answer(s));
  }
  return { steps, tally: tallyOf(next.value) };
}

const tallyOf = (t: { started: number; requests: number; recordings: number }) => ({ started: t.started, requests: t.requests, recordings: t.recordings });

const claimBase: ClaimInput = { now: NOW, probeIntervalMs: IDLE, slots: 4, turn: 0, audioWithheld: false, noAudioAfterMs: 5_000 };

/** [name, input, supply, claims, slots taken, requests, recordings] */
const claimRows: [string, Partial<ClaimInput>, Supply, string[], number, number, number][] = [
  ['4 slots: recordings half, detections the rest', {}, { recordings: 10, detections: 10 }, ['recordings 2 newest', 'detections 2 newest'], 4, 4, 2],
  ['an odd pass: the oldest first', { turn: 1 }, { recordings: 10, detections: 10 }, ['recordings 2 oldest', 'detections 2 oldest'], 4, 4, 2],
  ['5 slots: recordings take the larger half', { slots: 5 }, { recordings: 10, detections: 10 }, ['recordings 3 newest', 'detections 2 newest'], 5, 5, 3],
  ['no recording due: detections take every slot', {}, { detections: 10 }, ['recordings 2 newest', 'detections 4 newest'], 4, 4, 0],
  ['few detections: recordings take what they left', {}, { recordings: 10, detections: 1 }, ['recordings 2 newest', 'detections 2 newest', 'recordings 1 newest'], 4, 4, 3],
  ['nothing due', {}, {}, ['recordings 2 newest', 'detections 4 newest', 'recordings 4 newest'], 0, 0, 0],
  ['one slot, an even pass: a recording', { slots: 1 }, { recordings: 5, detections: 5 }, ['recordings 1 newest'], 1, 1, 1],
  ['one slot, an odd pass: a detection', { slots: 1, turn: 1 }, { recordings: 5, detections: 5 }, ['detections 1 oldest'], 1, 1, 0],
  ['one slot, an odd pass, no detection: a recording', { slots: 1, turn: 1 }, { recordings: 5 }, ['detections 1 oldest', 'recordings 1 oldest'], 1, 1, 1],
  ['audio withheld: no recording is claimed', { audioWithheld: true }, { recordings: 5, detections: 5 }, ['detections 4 newest'], 4, 4, 0],
  ['the link holds audio: detections only', { link: audioHeld }, { recordings: 5, detections: 5 }, ['detections 4 newest'], 4, 4, 0],
  ['soundscapes paused, the probe not due: detections only', { soundscapePause: { probeAt: NOW + 1 } }, { recordings: 5, detections: 5 }, ['detections 4 newest'], 4, 4, 0],
  ['soundscapes paused, the probe due: one recording probes', { soundscapePause: { probeAt: NOW } }, { recordings: 5, detections: 5 }, ['recordings 1 newest', 'detections 3 newest'], 4, 4, 1],
  ['FLACs ready in memory go first and count toward the share', { encoder: { ready: 3 } }, { encoded: 3, recordings: 5, detections: 5 }, ['encoded 4', 'detections 1 newest'], 4, 4, 3],
  ['more FLACs ready than slots: the rest keep theirs', { encoder: { ready: 6 } }, { encoded: 6, recordings: 5, detections: 5 }, ['encoded 4'], 4, 4, 4],
  [
    'WAVs due: encoded into the recordings\' room, then the leftover slots',
    { encoder: { ready: 0 } },
    { wavs: 5 },
    ['encoded 4', 'recordings 2 newest', 'encode 2 newest', 'detections 2 newest', 'recordings 2 newest', 'encode 2 newest'],
    4,
    0,
    0,
  ],
  ['a FLAC and a WAV share the recordings\' room', { encoder: { ready: 0 } }, { recordings: 1, wavs: 5, detections: 5 }, ['encoded 4', 'recordings 2 newest', 'encode 1 newest', 'detections 2 newest'], 4, 3, 1],
  ['audio withheld with an encoder: what is ready goes', { encoder: { ready: 2 }, audioWithheld: true }, { encoded: 2, detections: 5 }, ['discard-encoded', 'detections 4 newest'], 4, 4, 0],
];

describe('claimPlan: what a pass claims, in which order', () => {
  it.each(claimRows)('%s', (_name, input, supply, steps, started, requests, recordings) => {
    expect(run({ ...claimBase, ...input }, supply)).toEqual({ steps, tally: { started, requests, recordings } });
  });

  it('says what detections wait for, for the claim and the next wake alike', () => {
    const plan = claimPlan({ ...claimBase, link: audioHeld, audioWithheld: true });
    const first = plan.next();
    expect(first.value).toEqual({ step: 'detections', limit: 4, order: 'newest', waits: { noAudioAfterMs: 5_000, audioHeld: true, audioWithheld: true } });
    const done = plan.next(0);
    expect(done.done && done.value.waits).toEqual({ noAudioAfterMs: 5_000, audioHeld: true, audioWithheld: true });
  });
});

const idleRows: [string, { link?: LinkVerdict; nextDueAt: number | null; encodePausedUntil: number | null }, number][] = [
  ['nothing due, ever: the probe interval', { nextDueAt: null, encodePausedUntil: null }, IDLE],
  ['an item due in 500 ms', { nextDueAt: NOW + 500, encodePausedUntil: null }, 500],
  ['an item due in 2 ms: at least 10', { nextDueAt: NOW + 2, encodePausedUntil: null }, 10],
  ['an item due already: at least 10', { nextDueAt: NOW - 100, encodePausedUntil: null }, 10],
  ['the encode step resumes sooner', { nextDueAt: NOW + 500, encodePausedUntil: NOW + 200 }, 200],
  ['the encode step resumes in 100 s: the probe interval', { nextDueAt: null, encodePausedUntil: NOW + 100_000 }, IDLE],
  ['the link changes sooner', { link: { ...open, changesInMs: 300 }, nextDueAt: NOW + 5_000, encodePausedUntil: null }, 300],
  ['the link changes later', { link: { ...open, changesInMs: 9_000 }, nextDueAt: NOW + 5_000, encodePausedUntil: null }, 5_000],
];

describe('idleWait: how long a pass that claimed nothing sleeps', () => {
  it.each(idleRows)('%s', (_name, input, ms) => {
    expect(idleWait({ now: NOW, probeIntervalMs: IDLE, ...input })).toBe(ms);
  });
});
