import type { Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { driftBody, type DurationForm } from './drift.js';
import { Lies } from './lies.js';
import { seededRandom } from './random.js';
import { normalizeFaults, type FaultSpec, type NormalizedFaults } from './spec.js';

export type FaultAction = 'none' | 'timeout' | 'rate429' | 'json5xx' | 'html5xx' | 'drop';

export interface FaultDecision {
  action: FaultAction;
  latencyMs: number;
  /** Status of a 5xx answer. */
  status?: number;
  /** Set when a successful answer is to be reshaped (the `drift` fault), with the form of `duration`. */
  drift?: DurationForm;
}

const API_PREFIX = '/api/v1';

function gatewayPage(status: number): string {
  const title = status === 504 ? '504 Gateway Time-out' : '502 Bad Gateway';
  return `<html>\r\n<head><title>${title}</title></head>\r\n<body>\r\n<center><h1>${title}</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n`;
}

/**
 * Applies a FaultSpec to the `/api/v1` routes. One draw per eligible request
 * picks the outcome: [0, timeout) never answers, then 429, then 5xx, then drop
 * (commit, then destroy the connection), else the request is served normally. A
 * second draw picks the 5xx flavour (HTML gateway page or JSON, and its status). With
 * `drift`, a third draw decides whether a successful JSON answer is reshaped (drift.ts).
 * `set()` restarts the generator from the seed, so a test that sets faults sees the
 * same sequence every run.
 */
export class FaultInjector {
  private faults: NormalizedFaults | null = null;
  private random: () => number;
  private readonly dropped = new WeakSet<FastifyRequest>();
  private readonly drifted = new WeakMap<FastifyRequest, DurationForm>();
  private readonly held = new Set<Socket>();
  /** What the service misreports about accepted uploads (lies.ts); set with the same spec. */
  readonly lies: Lies;

  constructor(private readonly seed: number) {
    this.random = seededRandom(seed);
    this.lies = new Lies(seed);
  }

  /** Replaces the faults (null or `''` turns them off). Throws EmulatorOptionError on a bad spec. */
  set(spec: string | FaultSpec | null | undefined): void {
    this.faults = spec === null || spec === undefined ? null : normalizeFaults(spec);
    this.random = seededRandom(this.seed);
    this.lies.reset(this.faults);
  }

  get active(): NormalizedFaults | null {
    return this.faults;
  }

  /** The fault for one request; advances the generator only for eligible requests. */
  decide(method: string, url: string): FaultDecision {
    const faults = this.faults;
    const path = url.split('?')[0] ?? url;
    const eligible =
      faults !== null &&
      path.startsWith(API_PREFIX) &&
      faults.methods.has(method.toUpperCase()) &&
      (faults.paths === undefined || faults.paths.test(path));
    if (!eligible) return { action: 'none', latencyMs: 0 };
    const draw = this.random();
    const flavour = this.random();
    // Drawn only when asked for, so specs without drift meet the same sequence as before.
    const driftDraw = faults.drift > 0 ? this.random() : 1;
    const drift: DurationForm | undefined = driftDraw < faults.drift ? (driftDraw < faults.drift / 2 ? 'float' : 'string') : undefined;
    const latencyMs = faults.latencyMs;
    let edge = faults.timeout;
    if (draw < edge) return { action: 'timeout', latencyMs };
    if (draw < (edge += faults.rate429)) return { action: 'rate429', latencyMs };
    if (draw < (edge += faults.error5xx)) {
      // flavour in [0, html) -> HTML page; the rest of its range picks the status.
      if (flavour < faults.html) return { action: 'html5xx', latencyMs, status: flavour < faults.html / 2 ? 504 : 502 };
      return { action: 'json5xx', latencyMs, status: flavour < (1 + faults.html) / 2 ? 500 : 503 };
    }
    if (draw < edge + faults.drop) return { action: 'drop', latencyMs, drift };
    return { action: 'none', latencyMs, drift };
  }

  /** Installs the hooks; call before any route is added. */
  install(app: FastifyInstance): void {
    app.addHook('onRequest', async (request, reply) => {
      const decision = this.decide(request.method, request.url);
      if (decision.drift) this.drifted.set(request, decision.drift);
      if (decision.latencyMs > 0) await sleep(decision.latencyMs);
      if (this.apply(decision, request, reply)) return reply;
    });
    app.addHook('onSend', async (request, reply, payload) => {
      if (this.dropped.has(request)) request.raw.socket?.destroy();
      const drift = this.drifted.get(request);
      const json = String(reply.getHeader('content-type') ?? '').includes('json');
      if (drift && json && typeof payload === 'string' && reply.statusCode >= 200 && reply.statusCode < 300) {
        return driftBody(payload, reply.statusCode, drift);
      }
      return payload;
    });
  }

  /** Carries out a decision; true when the request is answered (or held) here. */
  private apply(decision: FaultDecision, request: FastifyRequest, reply: FastifyReply): boolean {
    switch (decision.action) {
      case 'none':
        return false;
      case 'timeout': {
        reply.hijack();
        const socket = request.raw.socket;
        this.held.add(socket);
        socket.once('close', () => this.held.delete(socket));
        return true;
      }
      case 'rate429':
        void reply
          .code(429)
          .header('retry-after', String(Math.ceil(this.faults?.retryAfterSec ?? 1)))
          .send({ success: false, message: 'Too Many Requests' });
        return true;
      case 'html5xx':
        void reply
          .code(decision.status!)
          .type('text/html')
          .send(gatewayPage(decision.status!));
        return true;
      case 'json5xx':
        void reply.code(decision.status!).send({
          success: false,
          message: decision.status === 503 ? 'Service Unavailable' : 'Internal Server Error',
        });
        return true;
      case 'drop':
        this.dropped.add(request);
        return false;
    }
  }

  /** Destroys the sockets held by `timeout` faults (at shutdown). */
  releaseHeld(): void {
    for (const socket of this.held) socket.destroy();
    this.held.clear();
  }
}
