import { describe, expect, it } from 'vitest';
import { EventBus } from '../../src/daemon/events.js';

describe('the daemon event bus', () => {
  it('delivers each event to its listeners in order, with its payload, and to no other event', () => {
    const bus = new EventBus();
    const seen: string[] = [];
    bus.on('queued', () => seen.push('queued 1'));
    bus.on('queued', () => seen.push('queued 2'));
    bus.on('outcome', (o) => seen.push(`${o.kind} ${o.outcome} ${o.durationMs}`));
    bus.emit('queued');
    bus.emit('outcome', { kind: 'detection', outcome: 'uploaded', durationMs: 12 });
    bus.emit('sendable');
    expect(seen).toEqual(['queued 1', 'queued 2', 'detection uploaded 12']);
  });

  it('lets a listener throw to the emitter: a bug is not swallowed', () => {
    const bus = new EventBus();
    bus.on('running', () => {
      throw new Error('listener bug');
    });
    expect(() => bus.emit('running')).toThrow('listener bug');
  });
});
