import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import formbody from '@fastify/formbody';
import Fastify, { type FastifyError, type FastifyInstance } from 'fastify';
import { adminTokenInBody, adminTokenInUrl } from './auth.js';
import { readLabelsFile } from './catalog/labels.js';
import type { EmulatorContext } from './context.js';
import { EmulatorOptionError } from './errors.js';
import { EmulatorEvents } from './events.js';
import { FaultInjector } from './faults/injector.js';
import { accessDenied, EmulatorHttpError } from './http-errors.js';
import {
  collectStationSeeds,
  DEFAULT_ID_OFFSET,
  DEFAULT_LABELS_FILE,
  DEFAULT_UPLOAD_LIMIT_BYTES,
  type EmulatorOptions,
} from './options.js';
import { redactText } from '../../src/wire/redact.js';
import { registerGraphql } from './graphql/index.js';
import { globalDetectionRoutes } from './routes/global-detections.js';
import { mediaRoutes } from './routes/media.js';
import { probeRoutes } from './routes/probes.js';
import { speciesRoutes } from './routes/species.js';
import { stationRoutes } from './routes/station.js';
import { seedStations } from './seed-stations.js';
import { EmulatorStore } from './store/index.js';

/** The fastify instance of the local service, with its context. */
export type EmulatorApp = FastifyInstance & { readonly emulator: EmulatorContext };

/** JSON bodies of detections and config are small; uploads stream past this limit (see receive-upload.ts). */
const JSON_BODY_LIMIT = 1024 * 1024;

function resolveDataDir(options: EmulatorOptions): { dataDir: string; temporary: boolean } {
  if (options.dataDir) return { dataDir: path.resolve(options.dataDir), temporary: false };
  const db = options.db ?? ':memory:';
  if (db === ':memory:') return { dataDir: mkdtempSync(path.join(tmpdir(), 'emulator-media-')), temporary: true };
  return { dataDir: `${path.resolve(db)}.media`, temporary: false };
}

/**
 * Builds the local service without listening (use `inject`, or `startEmulator`
 * to serve). Opens the store, loads the species catalog, creates the seeded
 * stations and installs fault injection. Closing the app closes the store.
 */
export async function buildEmulatorApp(options: EmulatorOptions = {}): Promise<EmulatorApp> {
  const seed = options.seed ?? 0;
  if (!Number.isInteger(seed)) throw new EmulatorOptionError(`seed must be an integer, got ${seed}`);
  const seeds = collectStationSeeds(options);
  const catalog = readLabelsFile(options.labels ?? DEFAULT_LABELS_FILE);
  const faults = new FaultInjector(seed);
  faults.set(options.faults ?? null);

  const { dataDir, temporary } = resolveDataDir(options);
  const store = EmulatorStore.open(options.db ?? ':memory:', { idOffset: options.idOffset ?? DEFAULT_ID_OFFSET });
  const now = options.now ?? Date.now;
  try {
    store.species.insertMissing(catalog);
    seedStations(store, seeds, now());
  } catch (err) {
    store.close();
    if (temporary) rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }

  const context: EmulatorContext = {
    store,
    events: new EmulatorEvents(),
    faults,
    seed,
    now,
    mediaUrl: (options.mediaUrl ?? 'http://127.0.0.1/media').replace(/\/+$/, ''),
    dataDir,
    adminToken: options.adminToken || undefined,
    uploadLimitBytes: options.uploadLimitBytes ?? DEFAULT_UPLOAD_LIMIT_BYTES,
  };
  const logger = options.logger;

  const app = Fastify({
    logger: false,
    forceCloseConnections: true,
    bodyLimit: JSON_BODY_LIMIT,
    routerOptions: { ignoreTrailingSlash: true },
  });
  app.decorate('emulator', context);
  const release = () => {
    faults.releaseHeld();
    store.close();
    if (temporary) rmSync(dataDir, { recursive: true, force: true });
  };
  app.addHook('onClose', (_instance, done) => {
    release();
    done();
  });
  faults.install(app);

  app.addHook('onRequest', (request, _reply, done) => {
    done(adminTokenInUrl(request.url, context.adminToken) ? accessDenied() : undefined);
  });
  app.addHook('preValidation', (request, _reply, done) => {
    done(adminTokenInBody(request.body, context.adminToken) ? accessDenied() : undefined);
  });
  if (logger?.debug) {
    const debug = logger.debug.bind(logger);
    app.addHook('onResponse', (request, reply, done) => {
      done();
      debug(
        { method: request.method, url: redactText(request.url), status: reply.statusCode, ms: Math.round(reply.elapsedTime) },
        'request',
      );
    });
  }

  app.setErrorHandler((error: FastifyError | EmulatorHttpError, request, reply) => {
    if (error instanceof EmulatorHttpError) return reply.code(error.status).send(error.body);
    const status = error.statusCode ?? 500;
    if (status < 500) return reply.code(status).send({ success: false, message: error.message });
    logger?.error({ err: { message: error.message, stack: error.stack }, url: redactText(request.url) }, 'request failed');
    return reply.code(500).send({ success: false, message: 'Internal Server Error' });
  });
  app.setNotFoundHandler((_request, reply) => reply.code(404).send({ success: false, message: 'Not found' }));

  try {
    await app.register(formbody);
    probeRoutes(app);
    await stationRoutes(app, context);
    globalDetectionRoutes(app, context);
    speciesRoutes(app, context);
    mediaRoutes(app, context);
    await registerGraphql(app, context, logger);
    if (options.extend) await options.extend(app, context);
  } catch (err) {
    release();
    throw err;
  }
  return app as unknown as EmulatorApp;
}
