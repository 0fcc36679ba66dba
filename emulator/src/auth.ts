import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { EmulatorContext } from './context.js';
import { accessDenied } from './http-errors.js';
import type { StationRecord } from './store/index.js';

/**
 * Station authentication of the REST interface:
 *
 * 1. A station endpoint takes the station token as its `{token}` path segment; an
 *    unknown or inactive station gets 403 `{success: false, message: "Access denied"}`.
 * 2. The administrator token is read only from `Authorization: Bearer <token>` or
 *    `X-Auth-Token: <token>`. With it, the path segment may be the numeric station
 *    id instead of the token, and inactive stations are reachable.
 * 3. A request that carries the administrator token anywhere else (the path, the
 *    query, a body parameter) is refused with 403 before anything else happens:
 *    URLs end up in logs and proxies, so a token there counts as leaked.
 */

function sameSecret(a: string, b: string): boolean {
  // Hashing first gives equal lengths, so the comparison time does not depend on the input.
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb);
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** True when the request presents the administrator token in an allowed header. */
export function hasAdminHeader(request: FastifyRequest, adminToken: string | undefined): boolean {
  if (!adminToken) return false;
  const bearer = /^Bearer\s+(.+)$/i.exec(headerValue(request.headers.authorization)?.trim() ?? '')?.[1];
  const xAuth = headerValue(request.headers['x-auth-token'])?.trim();
  return (bearer !== undefined && sameSecret(bearer, adminToken)) || (xAuth !== undefined && sameSecret(xAuth, adminToken));
}

function decoded(url: string): string {
  try {
    return decodeURIComponent(url.replace(/\+/g, ' '));
  } catch {
    return url;
  }
}

/** True when the URL (path or query) contains the administrator token. */
export function adminTokenInUrl(url: string, adminToken: string | undefined): boolean {
  if (!adminToken) return false;
  return url.includes(adminToken) || decoded(url).includes(adminToken);
}

/** True when a parsed body (JSON or form) holds the administrator token as any value. */
export function adminTokenInBody(body: unknown, adminToken: string | undefined, depth = 0): boolean {
  if (!adminToken || depth > 8 || body === null || body === undefined) return false;
  if (typeof body === 'string') return body.trim() === adminToken;
  if (Array.isArray(body)) return body.some((item) => adminTokenInBody(item, adminToken, depth + 1));
  if (typeof body === 'object' && !Buffer.isBuffer(body) && typeof (body as { pipe?: unknown }).pipe !== 'function') {
    return Object.values(body).some((value) => adminTokenInBody(value, adminToken, depth + 1));
  }
  return false;
}

const stations = new WeakMap<FastifyRequest, StationRecord>();

/** Finds the station of a `{token}` path segment under the rules above, or throws 403. */
export function authenticateStation(context: EmulatorContext, request: FastifyRequest, segment: string): StationRecord {
  const { adminToken, store } = context;
  if (adminToken && sameSecret(segment, adminToken)) throw accessDenied();
  let station: StationRecord | undefined;
  if (hasAdminHeader(request, adminToken)) {
    station = /^\d+$/.test(segment) ? store.stations.byId(Number(segment)) : undefined;
    station ??= store.stations.byToken(segment);
  } else {
    station = store.stations.byToken(segment);
    if (station && !station.active) station = undefined;
  }
  if (!station) throw accessDenied();
  stations.set(request, station);
  return station;
}

/** The station resolved for this request by `authenticateStation`. */
export function stationOf(request: FastifyRequest): StationRecord {
  const station = stations.get(request);
  if (!station) throw new Error('station route without authentication');
  return station;
}
