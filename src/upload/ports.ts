import type { Readable, Transform } from 'node:stream';
import type {
  Detection,
  PostDetectionBody,
  Soundscape,
  StatsResponse,
} from '../wire/types.js';
import type { ItemKind } from '../queue/index.js';
import type { ReconcileApi } from './reconcile.js';

/**
 * What the uploader needs from the service: a narrow view of the typed client,
 * so that the uploader's rules can be read without the HTTP details.
 */
export interface UploadApi extends ReconcileApi {
  /**
   * The soundscape from a spool file (`file`), from memory as it is (`data`), or from
   * memory through the bandwidth cap (`body` of `size` bytes, passing `through`).
   */
  uploadSoundscape(args: { timestamp: string; file?: string; data?: Buffer; body?: Readable; size?: number; signal?: AbortSignal; through?: Transform }): Promise<Soundscape>;
  postDetection(body: PostDetectionBody, signal?: AbortSignal): Promise<Detection>;
  /** A cheap authenticated read, used as the probe while uploads are paused. */
  probe(signal?: AbortSignal): Promise<StatsResponse>;
}

/** Measurements the uploader reports (metrics and status subscribe to them). */
export interface UploadObserver {
  outcome?(kind: ItemKind, outcome: UploadOutcome, durationMs: number, bytes?: number): void;
  /** The service accepts the station token again after a pause. */
  tokenAccepted?(): void;
}

export type UploadOutcome = 'uploaded' | 'reconciled' | 'retry' | 'unknown' | 'failed' | 'paused';
