import { setTimeout as wait } from 'node:timers/promises';
import PQueue from 'p-queue';
import { redactText, redactUrl } from '../wire/redact.js';
import { errorMessage } from '../errors.js';
import { deadline } from '../system/deadline.js';
import { backoffDelay } from '../system/backoff.js';
export const DEFAULT_WEBHOOK_TIMEOUT_MS = 10_000;
export function alertPayload(notice, station, test = false) {
    const word = notice.state === 'firing' ? 'alert' : 'recovered';
    return {
        event: notice.event,
        state: notice.state,
        station,
        title: `${station}: ${notice.event} ${word}`,
        message: notice.message,
        priority: test ? 2 : notice.state === 'firing' ? 8 : 4,
        reason: notice.reason,
        since: new Date(notice.since).toISOString(),
        at: new Date(notice.at).toISOString(),
        ...(test ? { test: true } : {}),
    };
}
export async function postAlert(options, payload, signal) {
    const headers = {
        'content-type': 'application/json',
        title: payload.title.replace(/[^\x20-\x7e]/g, '?'),
        priority: payload.state === 'firing' && !payload.test ? 'high' : 'default',
        tags: payload.state === 'firing' ? 'warning' : 'white_check_mark',
        ...Object.fromEntries(Object.entries(options.headers).map(([k, v]) => [k.toLowerCase(), v])),
    };
    if (options.secret)
        headers[options.secret.header.toLowerCase()] = `${options.secret.prefix}${options.secret.value}`;
    const path = new URL(options.url).pathname;
    const secrets = [options.secret?.value, path.length > 1 ? path : undefined];
    const timeout = options.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS;
    const limit = deadline(timeout, signal);
    try {
        const status = await post(new URL(options.url), headers, JSON.stringify(payload), timeout, limit.signal);
        if (status < 200 || status >= 300)
            throw new Error(`HTTP ${status}`);
    }
    catch (err) {
        const reason = limit.expired ? errorMessage(limit.signal.reason) : errorMessage(err);
        throw new Error(redactText(`alert webhook ${redactUrl(options.url)}: ${reason}`, secrets));
    }
    finally {
        limit.clear();
    }
}
async function post(url, headers, body, idleMs, signal) {
    const { request } = url.protocol === 'https:' ? await import('node:https') : await import('node:http');
    return new Promise((resolve, reject) => {
        let status;
        const req = request(url, { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) }, agent: false, signal, timeout: idleMs });
        req.on('timeout', () => req.destroy(Object.assign(new Error(`no data for ${idleMs} ms`), { code: 'ETIMEDOUT' })));
        req.on('error', (err) => (status === undefined ? reject(err) : resolve(status)));
        req.on('response', (res) => {
            status = res.statusCode ?? 0;
            const done = () => {
                resolve(status);
                res.destroy();
            };
            let size = 0;
            res.on('data', (chunk) => {
                size += chunk.length;
                if (size > 64 * 1024)
                    done();
            });
            res.on('end', done);
            res.on('error', done);
            res.on('close', done);
        });
        req.end(body);
    });
}
export const DEFAULT_DELIVERY = { attempts: 6, backoff: { baseMs: 5_000, maxMs: 300_000 }, maxQueued: 50 };
export class AlertDelivery {
    webhook;
    log;
    options;
    queue = new PQueue({ concurrency: 1 });
    abort = new AbortController();
    constructor(webhook, log, options = DEFAULT_DELIVERY) {
        this.webhook = webhook;
        this.log = log;
        this.options = options;
    }
    enqueue(payload, onSent = () => { }) {
        if (this.queue.size >= this.options.maxQueued) {
            this.log.warn({ event: payload.event, state: payload.state }, 'alert dropped: too many alerts wait for the webhook');
            return;
        }
        void this.queue.add(() => this.deliver(payload).then((sent) => sent && onSent()));
    }
    idle() {
        return this.queue.onIdle();
    }
    async stop() {
        this.queue.clear();
        this.abort.abort();
        await this.queue.onIdle();
    }
    async deliver(payload) {
        for (let attempt = 0; attempt < this.options.attempts; attempt++) {
            if (this.abort.signal.aborted)
                return false;
            try {
                await postAlert(this.webhook, payload, this.abort.signal);
                this.log.info({ event: payload.event, state: payload.state, to: redactUrl(this.webhook.url) }, `alert sent: ${payload.message}`);
                return true;
            }
            catch (err) {
                const last = attempt + 1 >= this.options.attempts;
                this.log.warn({ event: payload.event, state: payload.state, attempt: attempt + 1 }, `${errorMessage(err)}${last ? '; alert given up' : '; will retry'}`);
                if (last)
                    return false;
                await sleep(Math.max(100, backoffDelay(attempt, this.options.backoff)), this.abort.signal);
            }
        }
        return false;
    }
}
function sleep(ms, signal) {
    return wait(ms, undefined, { signal }).catch(() => undefined);
}
