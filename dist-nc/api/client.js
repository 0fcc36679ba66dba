import { buildQuery, detectionListQuery, soundscapeListQuery, speciesListQuery, statsQuery } from './query.js';
import { normalizeDetection, normalizeFullSpecies, normalizeSoundscape, normalizeSpeciesSummary, normalizeStationConfig, toId, toNumber, } from './normalize.js';
import { isObject } from '../wire/json-object.js';
import { callOptions, Transport } from './transport.js';
import { memoryBody, openUploadBody } from './upload-body.js';
const DETECTION_FIELDS = [
    'timestamp',
    'commonName',
    'scientificName',
    'lat',
    'lon',
    'confidence',
    'soundscapeId',
    'soundscapeStartTime',
    'soundscapeEndTime',
];
const CONFIG_FIELDS = [
    'name',
    'locationPrivacy',
    'minConfidence',
    'minProbability',
    'minScore',
    'minHumanConfidence',
];
export class ServiceClient {
    #t;
    constructor(options) {
        this.#t = new Transport(options);
    }
    async stats(query = {}, call) {
        const r = await this.#get('/stats', true, statsQuery(query), call);
        const detections = toNumber(r.json.detections);
        const species = toNumber(r.json.species);
        if (detections === undefined || species === undefined) {
            throw this.#t.rejected(r, `HTTP ${r.status} without the counts "detections" and "species"`, detections === undefined ? 'detections' : 'species');
        }
        return { ...r.json, success: true, detections, species };
    }
    probe(call) {
        return this.stats({}, call);
    }
    async listStationSpecies(query = {}, call) {
        const r = await this.#get('/species', true, speciesListQuery(query), call);
        const species = this.#array(r, 'species');
        return { ...r.json, success: true, species: species.map(normalizeSpeciesSummary) };
    }
    async postDetection(body, call) {
        const r = await this.#post('/detections', true, pick(body, DETECTION_FIELDS), call);
        return normalizeDetection(this.#created(r, 'detection'));
    }
    async listDetections(query = {}, call) {
        const r = await this.#get('/detections', true, detectionListQuery(query), call);
        const out = { ...r.json, success: true, detections: this.#array(r, 'detections').map(normalizeDetection) };
        if (Array.isArray(r.json.unfiltered_detections)) {
            out.unfiltered_detections = r.json.unfiltered_detections.map(normalizeDetection);
        }
        return out;
    }
    async getDetection(id, call) {
        const r = await this.#get(`/detections/${pathId(id, 'detection id')}`, true, '', call);
        return normalizeDetection(this.#object(r, 'detection'));
    }
    async getGlobalDetection(id, call) {
        const r = await this.#get(`/detections/${pathId(id, 'detection id')}`, false, '', call);
        return normalizeDetection(this.#object(r, 'detection'));
    }
    async uploadSoundscape(args) {
        const source = args.data ?? args.body ?? args.file;
        if (source === undefined)
            throw new TypeError('uploadSoundscape needs "body" (a file path or a stream), "file" or "data"');
        if (typeof args.timestamp !== 'string' || args.timestamp === '') {
            throw new TypeError('uploadSoundscape needs "timestamp" (ISO 8601 with offset)');
        }
        const upload = Buffer.isBuffer(source) ? memoryBody(source) : await openUploadBody(source, args.size, args.through);
        try {
            const r = await this.#t.exchange({
                method: 'POST',
                path: '/soundscapes',
                station: true,
                query: buildQuery({ timestamp: args.timestamp }),
                stream: {
                    body: upload.body,
                    contentType: args.contentType ?? 'audio/flac',
                    size: upload.size,
                    bytesSent: upload.bytesSent,
                },
                timeoutMs: args.timeoutMs ?? this.#t.uploadTimeoutMs,
                signal: args.signal,
            });
            return normalizeSoundscape(this.#created(r, 'soundscape'));
        }
        finally {
            upload.dispose();
        }
    }
    async listSoundscapes(query = {}, call) {
        const r = await this.#get('/soundscapes', true, soundscapeListQuery(query), call);
        return { ...r.json, success: true, soundscapes: this.#array(r, 'soundscapes').map(normalizeSoundscape) };
    }
    async getSoundscape(id, query = {}, call) {
        const q = buildQuery({ detections: query.detections });
        const r = await this.#get(`/soundscapes/${pathId(id, 'soundscape id')}`, true, q, call);
        return normalizeSoundscape(this.#object(r, 'soundscape'));
    }
    async getSpecies(id, call) {
        const r = await this.#get(`/species/${pathId(id, 'species id')}`, false, '', call);
        return normalizeFullSpecies(this.#object(r, 'species'));
    }
    async lookupSpecies(species, fields, call) {
        const body = { species };
        if (fields && fields.length)
            body.fields = fields;
        const r = await this.#post('/species/lookup', false, body, call);
        const map = r.json.species;
        if (!isObject(map))
            throw this.#t.rejected(r, `HTTP ${r.status} without the "species" object`, 'species');
        const out = {};
        for (const [key, value] of Object.entries(map))
            out[key] = normalizeFullSpecies(value);
        return { ...r.json, success: true, species: out };
    }
    async updateConfig(body, call) {
        const r = await this.#post('/config', true, pick(body, CONFIG_FIELDS), call);
        return normalizeStationConfig(this.#object(r, 'station'));
    }
    setToken(token) {
        this.#t.setToken(token);
    }
    close() {
        return this.#t.close();
    }
    #get(path, station, query, call) {
        const { signal, timeoutMs } = callOptions(call);
        return this.#t.exchange({ method: 'GET', path, station, query, signal, timeoutMs: timeoutMs ?? this.#t.timeoutMs });
    }
    #post(path, station, json, call) {
        const { signal, timeoutMs } = callOptions(call);
        return this.#t.exchange({ method: 'POST', path, station, json, signal, timeoutMs: timeoutMs ?? this.#t.timeoutMs });
    }
    #created(r, key) {
        const obj = r.json[key];
        if (!isObject(obj))
            throw this.#t.rejected(r, `HTTP ${r.status} without the created ${key}`, key);
        if (toId(obj.id) === undefined) {
            throw this.#t.rejected(r, `HTTP ${r.status} without the created ${key}'s id (id: ${JSON.stringify(obj.id ?? null)})`, `${key}.id`);
        }
        return obj;
    }
    #object(r, key) {
        const obj = r.json[key];
        if (!isObject(obj))
            throw this.#t.rejected(r, `HTTP ${r.status} without the "${key}" object`, key);
        return obj;
    }
    #array(r, key) {
        const list = r.json[key];
        if (!Array.isArray(list))
            throw this.#t.rejected(r, `HTTP ${r.status} without the "${key}" array`, key);
        return list;
    }
}
export function createServiceClient(options) {
    return new ServiceClient(options);
}
function pathId(id, what) {
    if (!Number.isSafeInteger(id) || id < 0)
        throw new TypeError(`${what} must be a non-negative integer, got ${String(id)}`);
    return String(id);
}
function pick(body, keys) {
    const out = {};
    for (const k of keys)
        if (body[k] !== undefined)
            out[k] = body[k];
    return out;
}
