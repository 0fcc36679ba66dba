/**
 * Reads what the service needs from the head of a FLAC file: the `fLaC` marker and
 * the STREAMINFO block (always the first metadata block). An ID3v2 tag in front of
 * the marker, as some taggers write, is skipped.
 *
 * STREAMINFO layout (34 bytes, big-endian bit fields): min/max block size (16+16),
 * min/max frame size (24+24), sample rate (20), channels - 1 (3),
 * bits per sample - 1 (5), total samples (36), MD5 (128).
 */
export interface FlacStreamInfo {
  sampleRate: number;
  channels: number;
  bitsPerSample: number;
  /** 0 means "unknown": an encoder that wrote to a pipe never came back to fill it in. */
  totalSamples: number;
}

export type AudioKind = 'flac' | 'wav' | 'unknown';

const FLAC_MARKER = Buffer.from('fLaC', 'latin1');

/** Offset of the `fLaC` marker, after an optional ID3v2 tag; -1 when absent from the head. */
function flacMarkerOffset(head: Buffer): number {
  let offset = 0;
  if (head.length >= 10 && head.toString('latin1', 0, 3) === 'ID3') {
    // Synchsafe size: 4 bytes of 7 bits; plus the 10-byte header and an optional footer.
    const size = ((head[6] & 0x7f) << 21) | ((head[7] & 0x7f) << 14) | ((head[8] & 0x7f) << 7) | (head[9] & 0x7f);
    offset = 10 + size + (head[5] & 0x10 ? 10 : 0);
  }
  return head.length >= offset + 4 && head.subarray(offset, offset + 4).equals(FLAC_MARKER) ? offset : -1;
}

export function sniffAudio(head: Buffer): AudioKind {
  if (flacMarkerOffset(head) >= 0) return 'flac';
  if (head.length >= 12 && head.toString('latin1', 0, 4) === 'RIFF' && head.toString('latin1', 8, 12) === 'WAVE') {
    return 'wav';
  }
  return 'unknown';
}

/** Parses STREAMINFO; returns an error text instead when the head is not a readable FLAC stream. */
export function readFlacStreamInfo(head: Buffer): FlacStreamInfo | string {
  const marker = flacMarkerOffset(head);
  if (marker < 0) return 'no fLaC marker';
  const block = marker + 4;
  if (head.length < block + 4 + 34) return 'file ends inside the STREAMINFO block';
  const type = head[block] & 0x7f;
  const length = head.readUIntBE(block + 1, 3);
  if (type !== 0 || length < 34) return 'the first metadata block is not a STREAMINFO block';
  const info = block + 4;
  const sampleRate = (head[info + 10] << 12) | (head[info + 11] << 4) | (head[info + 12] >> 4);
  const channels = ((head[info + 12] >> 1) & 0x07) + 1;
  const bitsPerSample = (((head[info + 12] & 0x01) << 4) | (head[info + 13] >> 4)) + 1;
  const totalSamples = (head[info + 13] & 0x0f) * 2 ** 32 + head.readUInt32BE(info + 14);
  return { sampleRate, channels, bitsPerSample, totalSamples };
}
