import type { ItemKind } from '../queue/index.js';
import type { UploadOutcome } from '../upload/ports.js';
import type { MqttMessageKind } from '../mqtt/publisher.js';

/**
 * What the daemon's components tell each other. One interface is the whole map: who
 * emits an event and who listens is found by searching for its name.
 */
export interface DaemonEvents {
  /** Ingest queued new items: the uploader (which encodes WAVs into memory), the spool compaction and MQTT look now. */
  queued: void;
  /** Items became sendable (encoded, compacted, time holds released, clock trusted): the uploader looks now. */
  sendable: void;
  /** Every upload outcome (metrics, tests). */
  outcome: { kind: ItemKind; outcome: UploadOutcome; durationMs: number; bytes?: number };
  /** The service accepts the station token again after a pause. */
  tokenAccepted: void;
  mqttPublished: { kind: MqttMessageKind; count: number };
  mqttFailed: { stage: 'connect' | 'publish' };
  /** A delivery audit stored its result in the queue's meta (`audit`): MQTT's state says it now. */
  audited: void;
  /** Every component has started. */
  running: void;
}

type Args<T> = T extends void ? [] : [payload: T];

/** A tiny synchronous event bus over `DaemonEvents`; a listener that throws is the emitter's bug, not swallowed. */
export class EventBus<Events extends object = DaemonEvents> {
  private readonly listeners = new Map<keyof Events, ((payload: never) => void)[]>();

  on<K extends keyof Events>(event: K, listener: (...args: Args<Events[K]>) => void): void {
    const list = this.listeners.get(event) ?? [];
    list.push(listener as unknown as (payload: never) => void);
    this.listeners.set(event, list);
  }

  emit<K extends keyof Events>(event: K, ...args: Args<Events[K]>): void {
    for (const listener of this.listeners.get(event) ?? []) (listener as unknown as (...a: Args<Events[K]>) => void)(...args);
  }
}
