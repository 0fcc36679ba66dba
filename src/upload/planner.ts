import type { CircuitState } from './circuit-breaker.js';
import type { LinkVerdict } from './link-policy.js';
import type { DetectionWaitOptions } from '../queue/claim-detections.js';

/**
 * The uploader's claim planner: what a pass may claim, in which order, and how long the
 * loop sleeps when it may claim nothing. Pure: the limits' verdicts and the free slots go
 * in, claims come out; the uploader (`uploader.ts`) runs them against the queue and
 * applies what they say. test/upload/planner.test.ts runs it from a table of inputs.
 */

/** The longest sleep while the station's clock holds uploads (it is asked again then). */
const HOLD_RECHECK_MS = 30_000;
/** The sleep when the half-open circuit's one probe is already out: its verdict comes soon. */
export const PROBE_WAIT_MS = 1_000;

/** What the limits say before any queue read: a pass asks this before it opens a transaction. */
export interface GateInput {
  now: number;
  /** How often a paused or tripped uploader looks again; also the longest sleep. */
  probeIntervalMs: number;
  /** The station's clock holds every upload (clock gate). */
  held: boolean;
  /** The link policy's verdict (windows, budget); absent without a link policy. */
  link?: LinkVerdict;
  /** Uploads paused on a refused token: when its next probe is due. */
  tokenPause?: { probeAt: number };
  /** That probe is in flight. */
  tokenProbing: boolean;
  circuit: CircuitState;
  /** When an open circuit lets its probe go. */
  circuitRetryAt: number;
  /** Requests the concurrency limit allows beyond those in flight and the encodes under way. */
  freeSlots: number;
}

export type GateVerdict =
  /** Nothing may be claimed: sleep `waitMs`; `probeToken`: first send the refused token's probe. */
  | { claim: false; waitMs: number; probeToken?: true }
  /** Claims may go into `slots` (one, when `probe`: the half-open circuit's probe permit must be taken first). */
  | { claim: true; slots: number; probe: boolean; link?: LinkVerdict };

export function gatePass(input: GateInput): GateVerdict {
  const { now, probeIntervalMs: idle, link } = input;
  if (input.held) return { claim: false, waitMs: Math.min(idle, HOLD_RECHECK_MS) };
  if (link && !link.uploads) return { claim: false, waitMs: untilLinkChange(link, idle) };
  if (input.tokenPause) {
    const { probeAt } = input.tokenPause;
    const waitMs = Math.max(1_000, probeAt - now);
    return now >= probeAt && !input.tokenProbing ? { claim: false, waitMs, probeToken: true } : { claim: false, waitMs };
  }
  if (input.circuit === 'open') return { claim: false, waitMs: Math.max(10, input.circuitRetryAt - now) };
  if (input.freeSlots <= 0) return { claim: false, waitMs: idle };
  const probe = input.circuit === 'half-open';
  // One request probes the service; the rest wait for its verdict.
  return { claim: true, slots: probe ? Math.min(1, input.freeSlots) : input.freeSlots, probe, link };
}

/** What a pass claims with, once the gate let it claim. */
export interface ClaimInput {
  now: number;
  probeIntervalMs: number;
  slots: number;
  link?: LinkVerdict;
  /**
   * The pass's turn in the alternation: even passes claim the newest items first and, with
   * one free slot, a recording; odd ones the oldest first and a detection. A backlog of
   * days never starves today's recordings, and neither kind starves the other.
   */
  turn: number;
  /** `privacy.audio: never`: no soundscape is claimed, and detections do not wait for one. */
  audioWithheld: boolean;
  /** Detections whose audio could not be spooled go without a soundscape after this. */
  noAudioAfterMs: number;
  /** Soundscapes paused on a refused format: when one may probe the service again. */
  soundscapePause?: { probeAt: number };
  /** The encode step, when there is one: how many FLACs it holds ready in memory. */
  encoder?: { ready: number };
}

export type Order = 'newest' | 'oldest';

/** What detections whose soundscape waits (or will never come) wait for: the claim and the next wake read the same. */
export type DetectionWaits = Required<DetectionWaitOptions>;

/**
 * One claim of the pass. Each step is answered with how many items it took (`encoded`:
 * how many recordings it claimed; `recordings`, `detections`: how many; `encode`: how many
 * WAVs it handed to the encode step, 0 when the step could start none).
 */
export type ClaimStep =
  /** The recordings the encode step holds ready, up to `limit`, claimed by id (they were due when chosen). */
  | { step: 'encoded'; limit: number }
  /** The link holds audio: what the encode step holds ready goes (encoded again when audio may go). */
  | { step: 'discard-encoded' }
  /** Due recordings whose spool file is the FLAC. */
  | { step: 'recordings'; limit: number; order: Order }
  /** Due WAV recordings to encode into memory (read, not claimed: the pass after their encode claims them). */
  | { step: 'encode'; limit: number; order: Order }
  | { step: 'detections'; limit: number; order: Order; waits: DetectionWaits };

export interface ClaimTally {
  /** Slots taken: requests launched and encodes started. */
  started: number;
  /** Requests launched (an encode holds a slot but is no request: it cannot be the circuit's probe). */
  requests: number;
  /** Recordings among those requests. */
  recordings: number;
  waits: DetectionWaits;
}

/**
 * The pass's claims, in order: recordings ready in memory first (they hold memory), then
 * recordings take at most half the free slots (with one free slot, every other pass),
 * detections the rest, and recordings what detections left. A recording needs the
 * recording budget: none while audio is withheld or held by the link, one while
 * soundscapes are paused and their probe is due, else a slot each.
 */
export function* claimPlan(input: ClaimInput): Generator<ClaimStep, ClaimTally, number> {
  const { now, link } = input;
  let { slots } = input;
  const order: Order = input.turn % 2 === 0 ? 'newest' : 'oldest';
  const waits: DetectionWaits = { noAudioAfterMs: input.noAudioAfterMs, audioHeld: link?.audio === false, audioWithheld: input.audioWithheld };
  const pause = input.soundscapePause;
  let budget = input.audioWithheld || link?.audio === false ? 0 : !pause ? slots : now >= pause.probeAt ? 1 : 0;
  const tally: ClaimTally = { started: 0, requests: 0, recordings: 0, waits };
  const sent = (n: number, kind: 'recording' | 'detection') => {
    tally.started += n;
    tally.requests += n;
    if (kind === 'recording') {
      tally.recordings += n;
      budget -= n;
    }
  };
  if (input.encoder) {
    const { ready } = input.encoder;
    if (budget === 0) {
      yield { step: 'discard-encoded' };
    } else {
      const limit = Math.min(slots, budget);
      sent(yield { step: 'encoded', limit }, 'recording');
      // The rest that are ready keep their slots for a later pass.
      slots -= Math.max(0, ready - limit);
    }
  }
  const share = slots === 1 ? (order === 'newest' ? 1 : 0) : Math.ceil(slots / 2);
  const encoder = input.encoder !== undefined;
  function* recordings(limit: number): Generator<ClaimStep, void, number> {
    if (limit <= 0) return;
    const claimed: number = yield { step: 'recordings', limit, order };
    sent(claimed, 'recording');
    const room = Math.min(limit - claimed, budget);
    if (!encoder || room <= 0) return;
    const encoding: number = yield { step: 'encode', limit: room, order };
    tally.started += encoding;
    budget -= encoding;
  }
  // Recordings sent from memory above count toward their share.
  yield* recordings(Math.min(share - tally.started, budget));
  if (tally.started < slots) sent(yield { step: 'detections', limit: slots - tally.started, order, waits }, 'detection');
  yield* recordings(Math.min(slots - tally.started, budget));
  return tally;
}

/**
 * How long a pass that claimed nothing sleeps: until the next item becomes due (a backoff
 * or a no-audio wait ends), the paused encode step may start again, or the link's verdict
 * changes, and at most the probe interval.
 */
export function idleWait(args: { now: number; probeIntervalMs: number; link?: LinkVerdict; nextDueAt: number | null; encodePausedUntil: number | null }): number {
  const { now, probeIntervalMs: idle, nextDueAt: next, encodePausedUntil: paused } = args;
  const wake = paused == null ? next : next == null ? paused : Math.min(next, paused);
  return untilLinkChange(args.link, wake == null ? idle : Math.min(idle, Math.max(10, wake - now)));
}

/** `ms`, or less when the link's verdict changes sooner (a window opens, the budget renews). */
export function untilLinkChange(link: LinkVerdict | undefined, ms: number): number {
  return link?.changesInMs == null ? ms : Math.min(ms, Math.max(10, link.changesInMs));
}
