import { randomUUID } from 'node:crypto';
import { mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Soundscape, SoundscapeListResponse, SoundscapeResponse } from '../../../src/wire/types.js';
import { readFlacStreamInfo, sniffAudio } from '../audio/flac-info.js';
import { receiveUpload } from '../audio/receive-upload.js';
import { stationOf } from '../auth.js';
import type { EmulatorContext } from '../context.js';
import { EmulatorHttpError, MESSAGES, notFound, validationFailed } from '../http-errors.js';
import { ParamReader, queryOf } from '../params.js';
import { DetectionPresenter } from '../present/detection.js';
import { presentSoundscape } from '../present/soundscape.js';
import { defaultModeOf } from '../seed-stations.js';
import type { SoundscapeRecord, StationRecord } from '../store/index.js';
import { formatTimestamp, parseTimestamp } from '../time.js';

/** The real service's answer to a WAV upload: 415, yet `success: true` with an empty soundscape. */
function wavRefused(station: StationRecord, timestampMs: number): EmulatorHttpError {
  return new EmulatorHttpError(415, {
    success: true,
    soundscape: {
      id: null,
      stationId: station.id,
      duration: null,
      filesize: null,
      sampleRate: null,
      timestamp: formatTimestamp(timestampMs, station.timezone),
      mode: defaultModeOf(station),
      url: null,
    },
    message: 'WAV soundscapes are no longer accepted; upload FLAC',
  });
}

function unprocessable(message: string): EmulatorHttpError {
  return new EmulatorHttpError(422, { success: false, message });
}

/**
 * Reads the upload's `timestamp` (required; a `+` that arrived as a space is
 * restored) and stores the FLAC body. Checks, in order: the body is not empty, is
 * FLAC (a WAV gets the 415 above, anything else 415 too), has a readable STREAMINFO
 * with a sample rate and a non-zero total sample count (0 = the encoder never wrote
 * the length: 422). Duration is total samples / sample rate, rounded to seconds.
 */
async function storeUpload(context: EmulatorContext, request: FastifyRequest): Promise<SoundscapeRecord> {
  const station = stationOf(request);
  const q = new ParamReader(queryOf(request.query));
  const timestampText = q.string('timestamp');
  q.finish();
  if (timestampText === undefined) throw validationFailed({ timestamp: [MESSAGES.blank] });
  const timestampMs = parseTimestamp(timestampText, station.timezone);
  if (timestampMs === null) throw validationFailed({ timestamp: [MESSAGES.invalid] });

  const body = request.body as Readable | undefined;
  if (!body || typeof body.pipe !== 'function') {
    throw unprocessable('the request has no body: send the FLAC file itself as the POST body');
  }
  const upload = await receiveUpload(body, {
    dir: path.join(context.dataDir, 'tmp'),
    contentEncoding: request.headers['content-encoding'],
    limitBytes: context.uploadLimitBytes,
  });
  let kept = false;
  try {
    if (upload.bytes === 0) throw unprocessable('the body is empty: send the FLAC file itself as the POST body');
    const kind = sniffAudio(upload.head);
    if (kind === 'wav') throw wavRefused(station, timestampMs);
    if (kind !== 'flac') {
      const gzip = upload.head[0] === 0x1f && upload.head[1] === 0x8b;
      throw new EmulatorHttpError(415, {
        success: false,
        message: gzip
          ? 'the body is gzip data without Content-Encoding: gzip; send that header or the plain FLAC file'
          : 'unsupported audio format: the body must be a FLAC file (starting with the fLaC marker)',
      });
    }
    const info = readFlacStreamInfo(upload.head);
    if (typeof info === 'string') throw unprocessable(`invalid FLAC file: ${info}`);
    if (info.sampleRate === 0) throw unprocessable('invalid FLAC file: STREAMINFO sample rate is 0');
    if (info.totalSamples === 0) {
      throw unprocessable(
        'invalid FLAC file: STREAMINFO total samples is 0 (length unknown); write the sample count into STREAMINFO before uploading',
      );
    }
    const fileKey = `${station.id}/${randomUUID()}.flac`;
    const target = path.join(context.dataDir, 'soundscapes', fileKey);
    await mkdir(path.dirname(target), { recursive: true });
    await rename(upload.file, target);
    kept = true;
    return context.store.soundscapes.insert(
      {
        stationId: station.id,
        timestampMs,
        duration: Math.round(info.totalSamples / info.sampleRate),
        filesize: upload.bytes,
        sampleRate: info.sampleRate,
        mode: defaultModeOf(station),
        fileKey,
      },
      context.now(),
    );
  } finally {
    if (!kept) await rm(upload.file, { force: true });
  }
}

/** Soundscape endpoints under the station prefix: upload, list, info. */
export function soundscapeRoutes(app: FastifyInstance, context: EmulatorContext): void {
  const { store } = context;

  const render = (station: StationRecord, soundscape: SoundscapeRecord, withDetections: boolean): Soundscape => {
    const out = presentSoundscape(soundscape, station, context.mediaUrl);
    if (withDetections) {
      const presenter = new DetectionPresenter(context, station);
      out.detections = store.detections.bySoundscape(soundscape.id).map((d) => presenter.render(d));
    }
    return out;
  };

  // The upload body is the audio itself, whatever its content type: parse nothing, stream it.
  void app.register((upload, _options, done) => {
    upload.removeAllContentTypeParsers();
    upload.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    upload.post('/soundscapes', async (request, reply) => {
      const soundscape = await storeUpload(context, request);
      const body: SoundscapeResponse = { success: true, soundscape: render(stationOf(request), soundscape, false) };
      // The answer is the truth; what is served afterwards may not be (faults/lies.ts).
      await context.faults.lies.soundscapeStored(store, context.dataDir, soundscape);
      return reply.code(201).send(body);
    });
    done();
  });

  app.get('/soundscapes', (request) => {
    const station = stationOf(request);
    const q = new ParamReader(queryOf(request.query));
    const zone = station.timezone;
    const filter = {
      stationId: station.id,
      fromMs: q.time('from', zone, 'from'),
      toMs: q.time('to', zone, 'to'),
      speciesId: q.integer('speciesId'),
    };
    const limit = q.limit();
    const cursor = q.integer('cursor');
    const withDetections = q.boolean('detections', false);
    q.finish();
    const soundscapes = store.soundscapes.list(filter, { limit, cursor }).map((s) => render(station, s, withDetections));
    const body: SoundscapeListResponse = { success: true, soundscapes };
    return body;
  });

  app.get<{ Params: { id: string } }>('/soundscapes/:id', (request) => {
    const station = stationOf(request);
    const q = new ParamReader(queryOf(request.query));
    const withDetections = q.boolean('detections', false);
    q.finish();
    const id = /^\d+$/.test(request.params.id) ? Number(request.params.id) : undefined;
    const soundscape = id === undefined ? undefined : store.soundscapes.byId(id);
    if (!soundscape || soundscape.stationId !== station.id) throw notFound('Soundscape not found');
    const body: SoundscapeResponse = { success: true, soundscape: render(station, soundscape, withDetections) };
    return body;
  });
}
