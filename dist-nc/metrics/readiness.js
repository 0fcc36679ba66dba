import { redactText } from '../wire/redact.js';
import { errorMessage } from '../errors.js';
export function checkReadiness(queue, snapshot) {
    let snap = null;
    let snapError = null;
    try {
        snap = snapshot();
    }
    catch (err) {
        snapError = errorMessage(err);
    }
    const watcher = !snap
        ? { ok: false, detail: `the daemon is still starting${snapError ? ` (${snapError})` : ''}` }
        : snap.watcher.ready
            ? { ok: true, detail: `watching ${snap.watcher.dir}` }
            : { ok: false, detail: `the first scan of ${snap.watcher.dir} is not finished` };
    let queueCheck;
    try {
        queue.stmt('SELECT 1').get();
        queueCheck = { ok: true, detail: `queue database ${queue.path} answers` };
    }
    catch (err) {
        queueCheck = { ok: false, detail: `queue database ${queue.path} does not answer: ${errorMessage(err)}` };
    }
    const pause = snap?.uploader.paused.find((p) => p.reason === 'token-rejected');
    const token = pause
        ? { ok: false, detail: `uploads are paused since ${new Date(pause.since).toISOString()}: ${redactText(pause.message)}` }
        : { ok: true, detail: snap ? 'the station token is not rejected' : 'no verdict yet' };
    const checks = { watcher, queue: queueCheck, token };
    const reasons = Object.values(checks)
        .filter((c) => !c.ok)
        .map((c) => c.detail);
    return { ready: reasons.length === 0, checks, reasons };
}
