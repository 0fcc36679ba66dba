import type { Config } from '../config/index.js';
import type { ChangedKeys } from './changed-keys.js';

/**
 * One part of the running daemon (zigbee2mqtt's extensions are the model). Every
 * component is a class whose constructor takes the station context (`context.ts`) and
 * nothing else: it publishes its state into the context's registry, reads the others'
 * there, and talks to them on the bus. The wiring module (`index.ts`) builds every
 * component of its list, starts them in list order and stops them in the reverse order,
 * so a component may rely on the ones listed before it running for as long as it runs. A
 * config reload goes through the same list.
 */
export interface Component {
  /** For logs and errors: what failed to start or stop. */
  readonly name: string;
  start(): Promise<void> | void;
  stop(): Promise<void> | void;
  /**
   * Apply the keys of a reloaded config that this component can change while it runs
   * (`reload-keys.ts` lists them); `changed` names the keys whose value changed. Keys that
   * need a restart are not this component's business.
   */
  reload?(next: Config, changed: ChangedKeys): Promise<void> | void;
}

/**
 * Stops `components` in the reverse of their start order. A component whose stop fails is
 * logged and passed over: the ones before it still stop, and the caller still closes the
 * database and releases the lock.
 */
export async function stopInReverse(components: readonly Component[], onError: (name: string, err: unknown) => void): Promise<void> {
  for (const component of [...components].reverse()) {
    try {
      await component.stop();
    } catch (err) {
      onError(component.name, err);
    }
  }
}
