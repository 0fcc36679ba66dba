import { expect } from 'vitest';
import type { EmulatorOptions } from '../../src/index.js';
import { startService, type TestService } from '../helpers.js';

/** A GraphQL answer as the wire has it. */
export interface GqlAnswer<T = Record<string, unknown>> {
  status: number;
  data?: T;
  errors?: { message: string; path?: (string | number)[]; extensions?: { code?: string } }[];
}

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read whatever the service answered */
export interface GqlService extends TestService {
  /** POSTs a query to `/graphql` over the real socket. */
  gql: <T = any>(query: string, variables?: Record<string, unknown>) => Promise<GqlAnswer<T>>;
  /** Like gql, and fails the test when the answer has errors. */
  data: <T = any>(query: string, variables?: Record<string, unknown>) => Promise<T>;
  /** Posts a detection through REST and returns its REST id. */
  postDetection: (body: Record<string, unknown>, token?: string) => Promise<number>;
}
/* eslint-enable @typescript-eslint/no-explicit-any */

export async function startGqlService(options: EmulatorOptions = {}): Promise<GqlService> {
  const service = await startService(options);
  const gql = async <T>(query: string, variables?: Record<string, unknown>): Promise<GqlAnswer<T>> => {
    const response = await fetch(`${service.emulator.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    });
    return { status: response.status, ...((await response.json()) as Omit<GqlAnswer<T>, 'status'>) };
  };
  return {
    ...service,
    gql,
    data: async <T>(query: string, variables?: Record<string, unknown>) => {
      const answer = await gql<T>(query, variables);
      expect(answer.errors, JSON.stringify(answer.errors)).toBeUndefined();
      return answer.data!;
    },
    postDetection: async (body, token) => {
      const answer = await service.post(service.station('/detections', token), {
        json: { commonName: 'x', confidence: 0.9, ...body },
      });
      expect(answer.status, answer.text).toBe(201);
      return answer.body.detection.id;
    },
  };
}

/** The GraphQL id of a REST id. */
export function gid(type: 'Detection' | 'Species' | 'Station' | 'Soundscape' | 'Sighting', id: number): string {
  return Buffer.from(`${type}:${id}`).toString('base64');
}

/** Epoch ms -> ISO 8601 in UTC (what REST accepts as a detection timestamp). */
export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;
