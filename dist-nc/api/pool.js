import { Agent, request as httpRequest } from 'node:http';
import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
export function connectionPool(origin, options) {
    const secure = origin.protocol === 'https:';
    const agentOptions = {
        keepAlive: true,
        maxSockets: options.connections,
        maxFreeSockets: options.connections,
        scheduling: 'lifo',
    };
    let agent;
    let request;
    if (secure) {
        const https = require('node:https');
        agent = new https.Agent(agentOptions);
        request = https.request;
    }
    else {
        agent = new Agent(agentOptions);
        request = httpRequest;
    }
    const idleMs = options.idleMs ?? 4_000;
    agent.on('free', (socket) => socket.setTimeout(idleMs));
    const inFlight = new Set();
    let open = true;
    return {
        origin,
        secure,
        agent,
        request,
        connectTimeoutMs: options.connectTimeoutMs,
        get open() {
            return open;
        },
        track(done) {
            const settled = done.then(() => undefined, () => undefined);
            inFlight.add(settled);
            void settled.then(() => inFlight.delete(settled));
        },
        async close() {
            open = false;
            await Promise.all([...inFlight]);
            agent.destroy();
        },
    };
}
