export class EventBus {
    listeners = new Map();
    on(event, listener) {
        const list = this.listeners.get(event) ?? [];
        list.push(listener);
        this.listeners.set(event, list);
    }
    emit(event, ...args) {
        for (const listener of this.listeners.get(event) ?? [])
            listener(...args);
    }
}
