import { SNAPSHOT_SECTIONS, type RuntimeSnapshot, type RuntimeState } from '../runtime/snapshot.js';

/**
 * The daemon's typed state registry: each component publishes what it knows under its own
 * name (a reader of its current value, so nothing is copied until someone asks), and the
 * others read it here, never through the component. The runtime snapshot (what `status`
 * and the metrics show) is the registry's content.
 * @example ctx.state.publish('clock', () => this.state); ctx.state.get('clock') // 'synchronized'
 */
export class StateRegistry {
  readonly startedAt = Date.now();
  private readonly readers = new Map<keyof RuntimeState, () => unknown>();

  /** One publisher per section: a second is a wiring bug. */
  publish<K extends keyof RuntimeState>(section: K, read: () => RuntimeState[K]): void {
    if (this.readers.has(section)) throw new Error(`the runtime state's ${section} section is published twice`);
    this.readers.set(section, read);
  }

  /** The section's current value; undefined while nobody publishes it (MQTT off). */
  get<K extends keyof RuntimeState>(section: K): RuntimeState[K] | undefined {
    return this.readers.get(section)?.() as RuntimeState[K] | undefined;
  }

  /** The runtime snapshot: every published section that has a value now, stamped. */
  snapshot(): RuntimeSnapshot {
    const snapshot: Record<string, unknown> = { pid: process.pid, startedAt: this.startedAt, updatedAt: Date.now() };
    for (const section of SNAPSHOT_SECTIONS) {
      const value = this.get(section);
      if (value !== undefined) snapshot[section] = value;
    }
    return snapshot as unknown as RuntimeSnapshot;
  }
}
