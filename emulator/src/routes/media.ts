import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { EmulatorContext } from '../context.js';
import { notFound } from '../http-errors.js';

function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * The media the local service's URLs point at, under `/media` (a custom `mediaUrl`
 * changes the URLs, not where they are served): uploaded soundscapes, and drawn
 * placeholder species images (the species' colour and alpha code; no photographs).
 */
export function mediaRoutes(app: FastifyInstance, context: EmulatorContext): void {
  const { store } = context;

  app.get<{ Params: { station: string; file: string } }>('/media/soundscapes/:station/:file', async (request, reply) => {
    const { station, file } = request.params;
    if (!/^\d+$/.test(station) || !/^[0-9a-f-]+\.flac$/.test(file)) throw notFound();
    const soundscape = store.soundscapes.byFileKey(`${station}/${file}`);
    if (!soundscape) throw notFound();
    const fullPath = path.join(context.dataDir, 'soundscapes', soundscape.fileKey);
    const size = (await stat(fullPath).catch(() => undefined))?.size;
    if (size === undefined) throw notFound();
    return reply.type('audio/flac').header('content-length', size).send(createReadStream(fullPath));
  });

  app.get<{ Params: { id: string; image: string } }>('/media/species/:id/:image', async (request, reply) => {
    const { id, image } = request.params;
    const size = image === 'image.svg' ? 400 : image === 'thumbnail.svg' ? 100 : 0;
    const species = /^\d+$/.test(id) ? store.species.byId(Number(id)) : undefined;
    if (!species || size === 0) throw notFound();
    const label = escapeXml(species.alpha ?? species.scientificName.slice(0, 4).toUpperCase());
    const svg =
      `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" viewBox="0 0 100 100">` +
      `<title>${escapeXml(species.commonName)} (placeholder)</title>` +
      `<rect width="100" height="100" fill="${species.color}"/>` +
      `<text x="50" y="58" font-family="sans-serif" font-size="22" text-anchor="middle" fill="#fff">${label}</text></svg>`;
    return reply.type('image/svg+xml').header('cache-control', 'public, max-age=86400').send(svg);
  });
}
