import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { VERSION } from '../version.js';
import { readPolicyCounts } from '../policy/counts.js';
import { ITEM_STATES, getMeta, queueCounts, type ItemKind, type Queue } from '../queue/index.js';
import type { RuntimeSnapshot } from '../runtime/snapshot.js';
import type { UploadObserver, UploadOutcome } from '../upload/ports.js';
import type { HoldReason } from '../upload/health.js';
import type { MqttMessageKind, MqttObserver } from '../mqtt/publisher.js';

/**
 * The agent's Prometheus metrics, in a registry of their own (never prom-client's
 * global one, so two agents in one process, or a test, do not share series).
 *
 * | metric | type | labels | source |
 * |---|---|---|---|
 * | `station_agent_queue_items` | gauge | kind, state | `queueCounts`, read on scrape |
 * | `station_agent_queue_oldest_waiting_seconds` | gauge | | age of the oldest pending/sending/unknown item, on scrape |
 * | `station_agent_uploads_total` | counter | kind, outcome | the uploader's observer |
 * | `station_agent_upload_duration_seconds` | histogram | kind | the uploader's observer (every request, whatever its outcome) |
 * | `station_agent_uploaded_bytes_total` | counter | kind | the uploader's observer (uploaded soundscapes) |
 * | `station_agent_last_success_timestamp_seconds` | gauge | | daemon snapshot, else the stored last success; 0 = never |
 * | `station_agent_uploads_paused` | gauge | reason | daemon snapshot: 1 while paused for that reason |
 * | `station_agent_circuit_state` | gauge | state | daemon snapshot: 1 for the current state |
 * | `station_agent_uploads_in_flight` | gauge | | daemon snapshot |
 * | `station_agent_watcher_ready` | gauge | | daemon snapshot: 1 once the first scan of input.dir is done |
 * | `station_agent_disk_low` | gauge | | daemon snapshot: 1 while free space is below disk.minFreeMb (no audio is spooled) |
 * | `station_agent_mqtt_published_total` | counter | kind | the MQTT publisher's observer: messages acknowledged (detection, update, state, status, discovery) |
 * | `station_agent_mqtt_failures_total` | counter | stage | the MQTT publisher's observer: failed connects and lost publishing sessions |
 * | `station_agent_mqtt_connected` | gauge | | daemon snapshot: 1 while connected to the broker, else 0 (also while MQTT is off) |
 * | `station_agent_privacy_soundscapes_withheld_total` | counter | | stored policy counts: soundscapes withheld because a person was heard |
 * | `station_agent_non_bird_detections_total` | counter | class | stored policy counts: rows of `filters.nonBirdClasses` / human classes not posted |
 * | `station_agent_filtered_detections_total` | counter | reason | stored policy counts: `excluded`, `below-species-min-confidence`, `species-gate-expired` |
 * | `station_agent_build_info` | gauge | version, node, arch | always 1: the agent's version (package.json), its Node.js and `process.arch` (Prometheus' `_build_info` convention) |
 * | `station_agent_audit_findings` | gauge | finding | the last delivery audit (stored): items `missing`, `altered`, `foreign` at the service |
 * | `station_agent_audit_last_timestamp_seconds` | gauge | | when the last delivery audit finished; 0 = never |
 * | `station_agent_audit_runs_total` | counter | | stored: delivery audits run |
 * | `station_agent_audit_requests_total` | counter | | stored: requests the audits made |
 * | `station_agent_audit_bytes_total` | counter | | stored: bytes of the answers the audits read |
 *
 * Queue and snapshot gauges are computed when scraped, not per event: a scrape a
 * minute costs one 12-row read, and an idle station writes nothing for metrics.
 * Plus prom-client's default process metrics (memory, CPU, event loop lag, GC).
 */

/** Reads the daemon's snapshot; may return null (or throw) while the daemon is still starting. */
export type SnapshotSource = () => RuntimeSnapshot | null;

export interface AgentMetricsOptions {
  queue: Queue;
  snapshot: SnapshotSource;
  now?: () => number;
}

export interface AgentMetrics {
  registry: Registry;
  /** Feed it the uploader's outcomes. */
  observer: UploadObserver;
  /** Feed it the MQTT publisher's messages and failures. */
  mqttObserver: MqttObserver;
}

const KINDS: readonly ItemKind[] = ['recording', 'detection'];
const OUTCOMES: readonly UploadOutcome[] = ['uploaded', 'reconciled', 'retry', 'unknown', 'failed', 'paused'];
/** Always exported (0 when not paused), so an alert on `== 1` has a series to watch from the start. */
const PAUSE_REASONS: readonly HoldReason[] = ['token-rejected', 'soundscape-format-rejected', 'clock-unsynchronized'];
const CIRCUIT_STATES = ['closed', 'open', 'half-open'] as const;
const MQTT_KINDS: readonly MqttMessageKind[] = ['detection', 'update', 'state', 'status', 'discovery'];
const MQTT_STAGES = ['connect', 'publish'] as const;
/** Seconds; a detection post on a LAN takes milliseconds, a soundscape over a slow link up to the request time limit. */
const DURATION_BUCKETS = [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

export function createAgentMetrics(options: AgentMetricsOptions): AgentMetrics {
  const { queue, snapshot } = options;
  const now = options.now ?? Date.now;
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];

  const readSnapshot = (): RuntimeSnapshot | null => {
    try {
      return snapshot();
    } catch {
      return null;
    }
  };

  // Both queue gauges read one snapshot of the counts per scrape: a scrape calls every
  // collect() in the same turn of the event loop, and the cache ends with that turn.
  const readCounts = oncePerScrape(queue, queueCounts);

  new Gauge({
    name: 'station_agent_queue_items',
    help: 'Queued items per kind (recording = soundscape, detection) and state.',
    labelNames: ['kind', 'state'] as const,
    registers,
    collect() {
      this.reset();
      const counts = readCounts();
      if (!counts) return;
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
    labelNames: ['kind', 'outcome'] as const,
    registers,
  });
  const duration = new Histogram({
    name: 'station_agent_upload_duration_seconds',
    help: 'Duration of upload requests in seconds, by kind, whatever their outcome.',
    labelNames: ['kind'] as const,
    buckets: DURATION_BUCKETS,
    registers,
  });
  const bytes = new Counter({
    name: 'station_agent_uploaded_bytes_total',
    help: 'Bytes of audio uploaded (the size the service stored), by kind.',
    labelNames: ['kind'] as const,
    registers,
  });
  for (const kind of KINDS) {
    for (const outcome of OUTCOMES) uploads.inc({ kind, outcome }, 0);
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
      if (at == null) at = storedLastSuccess();
      this.set(at == null ? 0 : at / 1000);
    },
  });
  new Gauge({
    name: 'station_agent_uploads_paused',
    help: 'Whether uploads are paused, per reason (1 paused, 0 not): token-rejected, soundscape-format-rejected, clock-unsynchronized.',
    labelNames: ['reason'] as const,
    registers,
    collect() {
      this.reset();
      const snap = readSnapshot();
      if (!snap) return;
      const active = new Set(snap.uploader.paused.map((p) => p.reason));
      for (const reason of new Set<string>([...PAUSE_REASONS, ...active])) this.set({ reason }, active.has(reason) ? 1 : 0);
    },
  });
  new Gauge({
    name: 'station_agent_circuit_state',
    help: 'State of the circuit breaker around the service: 1 for the current state (closed, open, half-open).',
    labelNames: ['state'] as const,
    registers,
    collect() {
      this.reset();
      const snap = readSnapshot();
      if (!snap) return;
      for (const state of CIRCUIT_STATES) this.set({ state }, snap.uploader.circuit === state ? 1 : 0);
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

  // The daemon's own verdict on disk space (the disk-low alert's): a fleet alerts on it without
  // a node_exporter beside the agent, and without repeating disk.minFreeMb in its rules. (No
  // free-bytes gauge: a label-less gauge reads 0 before the first measurement, which a graph
  // would show as a full disk; node_exporter's filesystem metrics graph the space itself.)
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
    labelNames: ['kind'] as const,
    registers,
  });
  const mqttFailures = new Counter({
    name: 'station_agent_mqtt_failures_total',
    help: 'MQTT failures by stage: connect (the broker could not be reached or refused) and publish (a session lost with messages unacknowledged).',
    labelNames: ['stage'] as const,
    registers,
  });
  for (const kind of MQTT_KINDS) mqttPublished.inc({ kind }, 0);
  for (const stage of MQTT_STAGES) mqttFailures.inc({ stage }, 0);
  new Gauge({
    name: 'station_agent_mqtt_connected',
    help: 'Whether the agent is connected to the MQTT broker (1) or not (0, also while MQTT is off).',
    registers,
    collect() {
      this.set(readSnapshot()?.mqtt?.connected ? 1 : 0);
    },
  });
  const mqttObserver: MqttObserver = {
    published: (kind, count) => mqttPublished.inc({ kind }, count),
    failed: (stage) => mqttFailures.inc({ stage }),
  };
  // Policy counters live in the queue (they survive restarts): read on scrape like the queue gauges.
  const readPolicy = oncePerScrape(queue, readPolicyCounts);
  new Counter({
    name: 'station_agent_privacy_soundscapes_withheld_total',
    help: 'Recordings whose soundscape was withheld because the analyzer heard a person (privacy.withholdHumanRecordings).',
    registers,
    collect() {
      const p = readPolicy();
      this.reset();
      if (p) this.inc(p.humanSoundscapesWithheld);
    },
  });
  new Counter({
    name: 'station_agent_non_bird_detections_total',
    help: 'Rows of non-bird and human classes (filters.nonBirdClasses, privacy.humanClasses) not posted, per class.',
    labelNames: ['class'] as const,
    registers,
    collect() {
      const p = readPolicy();
      this.reset();
      for (const [name, n] of Object.entries(p?.nonBird ?? {})) this.inc({ class: name }, n);
    },
  });
  new Counter({
    name: 'station_agent_filtered_detections_total',
    help: 'Detections not posted by filters: excluded (filters.include/exclude), below-species-min-confidence, species-gate-expired.',
    labelNames: ['reason'] as const,
    registers,
    collect() {
      const p = readPolicy();
      this.reset();
      if (!p) return;
      this.inc({ reason: 'excluded' }, p.excluded);
      this.inc({ reason: 'below-species-min-confidence' }, p.belowSpeciesMinConfidence);
      this.inc({ reason: 'species-gate-expired' }, p.speciesGateExpired);
    },
  });

  // What each station runs, for the fleet's versions panel and its "behind the newest
  // release" alert (deploy/): one series, its value 1, the facts in its labels.
  new Gauge({
    name: 'station_agent_build_info',
    help: 'The agent\'s version, the Node.js it runs on and its architecture (process.arch), as labels; always 1.',
    labelNames: ['version', 'node', 'arch'] as const,
    registers,
  }).set({ version: VERSION, node: process.versions.node, arch: process.arch }, 1);

  // The delivery audit's result lives in the queue's meta (daemon/audit.ts): read on scrape.
  const readAudit = oncePerScrape(queue, (q) => getMeta(q, 'audit') ?? null);
  new Gauge({
    name: 'station_agent_audit_findings',
    help: 'Items the last delivery audit found missing, altered or foreign at the service (station-agent audit).',
    labelNames: ['finding'] as const,
    registers,
    collect() {
      const a = readAudit();
      for (const finding of ['missing', 'altered', 'foreign'] as const) this.set({ finding }, a?.[finding] ?? 0);
    },
  });
  new Gauge({
    name: 'station_agent_audit_last_timestamp_seconds',
    help: 'Unix time the last delivery audit finished; 0 = never.',
    registers,
    collect() {
      this.set((readAudit()?.at ?? 0) / 1000);
    },
  });
  for (const [name, help, key] of [
    ['station_agent_audit_runs_total', 'Delivery audits run.', 'runs'],
    ['station_agent_audit_requests_total', 'Requests the delivery audits made.', 'requestsTotal'],
    ['station_agent_audit_bytes_total', 'Bytes of the answers the delivery audits read (JSON bodies).', 'bytesTotal'],
  ] as const) {
    new Counter({
      name,
      help,
      registers,
      collect() {
        this.reset();
        this.inc(readAudit()?.[key] ?? 0);
      },
    });
  }

  function storedLastSuccess(): number | null {
    try {
      return queue.open ? (getMeta(queue, 'lastSuccessAt') ?? null) : null;
    } catch {
      return null;
    }
  }

  const observer: UploadObserver = {
    outcome(kind, outcome, durationMs, sentBytes) {
      uploads.inc({ kind, outcome });
      duration.observe({ kind }, Math.max(0, durationMs) / 1000);
      if (outcome === 'uploaded' && sentBytes !== undefined && sentBytes > 0) bytes.inc({ kind }, sentBytes);
    },
  };
  return { registry, observer, mqttObserver };
}

/**
 * `read` of the queue at most once per scrape: every collect of one scrape runs in the
 * same tick, and the value is forgotten at the next. A closed or broken database gives
 * null, which leaves the series out; /readyz says why.
 */
function oncePerScrape<T>(queue: Queue, read: (q: Queue) => T): () => T | null {
  let cache: { value: T | null } | null = null;
  return () => {
    if (cache) return cache.value;
    let value: T | null = null;
    try {
      if (queue.open) value = read(queue);
    } catch {
      value = null;
    }
    cache = { value };
    setImmediate(() => (cache = null));
    return value;
  };
}
