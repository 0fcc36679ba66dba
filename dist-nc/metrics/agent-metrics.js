import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { readPolicyCounts } from '../policy/counts.js';
import { ITEM_STATES, getMeta, queueCounts } from '../queue/index.js';
const KINDS = ['recording', 'detection'];
const OUTCOMES = ['uploaded', 'reconciled', 'retry', 'unknown', 'failed', 'paused'];
const PAUSE_REASONS = ['token-rejected', 'soundscape-format-rejected', 'clock-unsynchronized'];
const CIRCUIT_STATES = ['closed', 'open', 'half-open'];
const MQTT_KINDS = ['detection', 'update', 'state', 'status', 'discovery'];
const MQTT_STAGES = ['connect', 'publish'];
const DURATION_BUCKETS = [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
export function createAgentMetrics(options) {
    const { queue, snapshot } = options;
    const now = options.now ?? Date.now;
    const registry = new Registry();
    collectDefaultMetrics({ register: registry });
    const registers = [registry];
    const readSnapshot = () => {
        try {
            return snapshot();
        }
        catch {
            return null;
        }
    };
    const readCounts = oncePerScrape(queue, queueCounts);
    new Gauge({
        name: 'station_agent_queue_items',
        help: 'Queued items per kind (recording = soundscape, detection) and state.',
        labelNames: ['kind', 'state'],
        registers,
        collect() {
            this.reset();
            const counts = readCounts();
            if (!counts)
                return;
            for (const state of ITEM_STATES) {
                this.set({ kind: 'recording', state }, counts.recordings[state]);
                this.set({ kind: 'detection', state }, counts.detections[state]);
            }
        },
    });
    new Gauge({
        name: 'station_agent_queue_oldest_waiting_seconds',
        help: 'Age in seconds of the oldest item waiting to be uploaded (pending, sending or unknown); 0 when none waits.',
        registers,
        collect() {
            const at = readCounts()?.oldestPendingAt ?? null;
            this.set(at == null ? 0 : Math.max(0, (now() - at) / 1000));
        },
    });
    const uploads = new Counter({
        name: 'station_agent_uploads_total',
        help: 'Upload attempts by kind and outcome (uploaded, reconciled, retry, unknown, failed, paused).',
        labelNames: ['kind', 'outcome'],
        registers,
    });
    const duration = new Histogram({
        name: 'station_agent_upload_duration_seconds',
        help: 'Duration of upload requests in seconds, by kind, whatever their outcome.',
        labelNames: ['kind'],
        buckets: DURATION_BUCKETS,
        registers,
    });
    const bytes = new Counter({
        name: 'station_agent_uploaded_bytes_total',
        help: 'Bytes of audio uploaded (the size the service stored), by kind.',
        labelNames: ['kind'],
        registers,
    });
    for (const kind of KINDS) {
        for (const outcome of OUTCOMES)
            uploads.inc({ kind, outcome }, 0);
        duration.zero({ kind });
        bytes.inc({ kind }, 0);
    }
    new Gauge({
        name: 'station_agent_last_success_timestamp_seconds',
        help: 'Unix time of the last successful upload (also from before a restart); 0 when there was none.',
        registers,
        collect() {
            const live = readSnapshot()?.uploader.lastSuccessAt ?? null;
            let at = live;
            if (at == null)
                at = storedLastSuccess();
            this.set(at == null ? 0 : at / 1000);
        },
    });
    new Gauge({
        name: 'station_agent_uploads_paused',
        help: 'Whether uploads are paused, per reason (1 paused, 0 not): token-rejected, soundscape-format-rejected, clock-unsynchronized.',
        labelNames: ['reason'],
        registers,
        collect() {
            this.reset();
            const snap = readSnapshot();
            if (!snap)
                return;
            const active = new Set(snap.uploader.paused.map((p) => p.reason));
            for (const reason of new Set([...PAUSE_REASONS, ...active]))
                this.set({ reason }, active.has(reason) ? 1 : 0);
        },
    });
    new Gauge({
        name: 'station_agent_circuit_state',
        help: 'State of the circuit breaker around the service: 1 for the current state (closed, open, half-open).',
        labelNames: ['state'],
        registers,
        collect() {
            this.reset();
            const snap = readSnapshot();
            if (!snap)
                return;
            for (const state of CIRCUIT_STATES)
                this.set({ state }, snap.uploader.circuit === state ? 1 : 0);
        },
    });
    new Gauge({
        name: 'station_agent_uploads_in_flight',
        help: 'Upload requests in flight.',
        registers,
        collect() {
            this.set(readSnapshot()?.uploader.inFlight ?? 0);
        },
    });
    new Gauge({
        name: 'station_agent_watcher_ready',
        help: 'Whether the watcher has finished its first scan of input.dir (1) or not (0).',
        registers,
        collect() {
            this.set(readSnapshot()?.watcher.ready ? 1 : 0);
        },
    });
    new Gauge({
        name: 'station_agent_disk_low',
        help: 'Whether free space on dataDir is below disk.minFreeMb (1: new audio is not spooled) or not (0).',
        registers,
        collect() {
            this.set(readSnapshot()?.disk.low ? 1 : 0);
        },
    });
    const mqttPublished = new Counter({
        name: 'station_agent_mqtt_published_total',
        help: 'MQTT messages the broker acknowledged, by kind (detection, update, state, status, discovery).',
        labelNames: ['kind'],
        registers,
    });
    const mqttFailures = new Counter({
        name: 'station_agent_mqtt_failures_total',
        help: 'MQTT failures by stage: connect (the broker could not be reached or refused) and publish (a session lost with messages unacknowledged).',
        labelNames: ['stage'],
        registers,
    });
    for (const kind of MQTT_KINDS)
        mqttPublished.inc({ kind }, 0);
    for (const stage of MQTT_STAGES)
        mqttFailures.inc({ stage }, 0);
    new Gauge({
        name: 'station_agent_mqtt_connected',
        help: 'Whether the agent is connected to the MQTT broker (1) or not (0, also while MQTT is off).',
        registers,
        collect() {
            this.set(readSnapshot()?.mqtt?.connected ? 1 : 0);
        },
    });
    const mqttObserver = {
        published: (kind, count) => mqttPublished.inc({ kind }, count),
        failed: (stage) => mqttFailures.inc({ stage }),
    };
    const readPolicy = oncePerScrape(queue, readPolicyCounts);
    new Counter({
        name: 'station_agent_privacy_soundscapes_withheld_total',
        help: 'Recordings whose soundscape was withheld because the analyzer heard a person (privacy.withholdHumanRecordings).',
        registers,
        collect() {
            const p = readPolicy();
            this.reset();
            if (p)
                this.inc(p.humanSoundscapesWithheld);
        },
    });
    new Counter({
        name: 'station_agent_non_bird_detections_total',
        help: 'Rows of non-bird and human classes (filters.nonBirdClasses, privacy.humanClasses) not posted, per class.',
        labelNames: ['class'],
        registers,
        collect() {
            const p = readPolicy();
            this.reset();
            for (const [name, n] of Object.entries(p?.nonBird ?? {}))
                this.inc({ class: name }, n);
        },
    });
    new Counter({
        name: 'station_agent_filtered_detections_total',
        help: 'Detections not posted by filters: excluded (filters.include/exclude), below-species-min-confidence, species-gate-expired.',
        labelNames: ['reason'],
        registers,
        collect() {
            const p = readPolicy();
            this.reset();
            if (!p)
                return;
            this.inc({ reason: 'excluded' }, p.excluded);
            this.inc({ reason: 'below-species-min-confidence' }, p.belowSpeciesMinConfidence);
            this.inc({ reason: 'species-gate-expired' }, p.speciesGateExpired);
        },
    });
    function storedLastSuccess() {
        try {
            return queue.open ? (getMeta(queue, 'lastSuccessAt') ?? null) : null;
        }
        catch {
            return null;
        }
    }
    const observer = {
        outcome(kind, outcome, durationMs, sentBytes) {
            uploads.inc({ kind, outcome });
            duration.observe({ kind }, Math.max(0, durationMs) / 1000);
            if (outcome === 'uploaded' && sentBytes !== undefined && sentBytes > 0)
                bytes.inc({ kind }, sentBytes);
        },
    };
    return { registry, observer, mqttObserver };
}
function oncePerScrape(queue, read) {
    let cache = null;
    return () => {
        if (cache)
            return cache.value;
        let value = null;
        try {
            if (queue.open)
                value = read(queue);
        }
        catch {
            value = null;
        }
        cache = { value };
        setImmediate(() => (cache = null));
        return value;
    };
}
