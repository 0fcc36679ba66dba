import { AudioFileError } from './errors.js';

/** Format tags we read (`wFormatTag`, or the first two bytes of the EXTENSIBLE sub-format). */
export const WAVE_FORMAT_PCM = 0x0001;
export const WAVE_FORMAT_IEEE_FLOAT = 0x0003;
const WAVE_FORMAT_EXTENSIBLE = 0xfffe;

/** Names for the tags we refuse, so the error says what the file is rather than a number. */
const FORMAT_NAMES: Record<number, string> = {
  0x0002: 'Microsoft ADPCM',
  0x0006: 'A-law',
  0x0007: 'mu-law',
  0x0011: 'IMA ADPCM',
  0x0031: 'GSM 6.10',
  0x0050: 'MPEG audio',
  0x0055: 'MP3',
  0x0161: 'Windows Media Audio',
  0x2000: 'AC-3',
};

/**
 * The tail shared by every KSDATAFORMAT_SUBTYPE_* GUID whose first two bytes are a
 * classic format tag (`xxxx0000-0000-0010-8000-00aa00389b71`). Other GUIDs (ambisonic
 * B-format, vendor formats) are not plain PCM and are refused.
 */
const KSDATAFORMAT_TAIL = Buffer.from('000000001000800000aa00389b71', 'hex');

/** What the `fmt ` chunk says, after resolving WAVE_FORMAT_EXTENSIBLE. */
export interface WavFormat {
  /** Effective format tag: 1 (integer PCM) or 3 (IEEE float). */
  formatTag: number;
  channels: number;
  sampleRate: number;
  /** Bytes per sample frame (all channels). */
  blockAlign: number;
  /** The container size per sample (`wBitsPerSample`): 8, 16, 24, 32 or 64. */
  bitsPerSample: number;
  /** Bits that carry signal (EXTENSIBLE's `wValidBitsPerSample`), else `bitsPerSample`. */
  validBitsPerSample: number;
}

function formatTagName(tag: number): string {
  const hex = `0x${tag.toString(16).padStart(4, '0').toUpperCase()}`;
  const name = FORMAT_NAMES[tag];
  return name ? `${hex} (${name})` : hex;
}

/**
 * Parse and validate a `fmt ` chunk body. Throws AudioFileError for anything we cannot
 * turn into FLAC: compressed formats, zero channels or sample rate, odd sample sizes.
 */
export function parseFmtChunk(body: Buffer, file: string): WavFormat {
  if (body.length < 16) {
    throw new AudioFileError(file, 'bad-fmt', `fmt chunk is ${body.length} bytes, expected at least 16`);
  }
  let formatTag = body.readUInt16LE(0);
  const channels = body.readUInt16LE(2);
  const sampleRate = body.readUInt32LE(4);
  const blockAlign = body.readUInt16LE(12);
  const bitsPerSample = body.readUInt16LE(14);
  let validBitsPerSample = bitsPerSample;

  if (formatTag === WAVE_FORMAT_EXTENSIBLE) {
    if (body.length < 40) {
      throw new AudioFileError(
        file,
        'bad-fmt',
        `WAVE_FORMAT_EXTENSIBLE fmt chunk is ${body.length} bytes, expected 40`,
      );
    }
    const declaredValid = body.readUInt16LE(18);
    if (declaredValid > 0) validBitsPerSample = declaredValid;
    const subFormat = body.subarray(24, 40);
    if (!subFormat.subarray(2).equals(KSDATAFORMAT_TAIL)) {
      throw new AudioFileError(
        file,
        'unsupported-format',
        `unsupported WAVE_FORMAT_EXTENSIBLE sub-format GUID ${subFormat.toString('hex')}`,
      );
    }
    formatTag = subFormat.readUInt16LE(0);
  }

  if (formatTag !== WAVE_FORMAT_PCM && formatTag !== WAVE_FORMAT_IEEE_FLOAT) {
    throw new AudioFileError(
      file,
      'unsupported-format',
      `unsupported WAV format tag ${formatTagName(formatTag)}: only integer PCM and IEEE float can be encoded`,
    );
  }
  if (channels === 0) throw new AudioFileError(file, 'bad-fmt', 'fmt chunk declares 0 channels');
  if (sampleRate === 0) throw new AudioFileError(file, 'bad-fmt', 'fmt chunk declares a sample rate of 0 Hz');
  // FLAC's limits (libFLAC 1.3: 1-8 channels, sample rate below 655350 Hz).
  if (channels > 8) {
    throw new AudioFileError(file, 'unsupported-format', `${channels} channels; FLAC allows at most 8`);
  }
  if (sampleRate > 655_350) {
    throw new AudioFileError(file, 'unsupported-format', `sample rate ${sampleRate} Hz is above FLAC's 655350 Hz`);
  }

  const supportedBits = formatTag === WAVE_FORMAT_PCM ? [8, 16, 24, 32] : [32, 64];
  if (!supportedBits.includes(bitsPerSample)) {
    const kind = formatTag === WAVE_FORMAT_PCM ? 'integer PCM' : 'float';
    throw new AudioFileError(
      file,
      'unsupported-format',
      `${bitsPerSample}-bit ${kind} is not supported (expected ${supportedBits.join(', ')} bits)`,
    );
  }
  const expectedAlign = channels * (bitsPerSample / 8);
  if (blockAlign !== expectedAlign) {
    throw new AudioFileError(
      file,
      'bad-fmt',
      `block align ${blockAlign} does not match ${channels} channel(s) x ${bitsPerSample} bits (expected ${expectedAlign})`,
    );
  }
  if (validBitsPerSample > bitsPerSample) validBitsPerSample = bitsPerSample;
  return { formatTag, channels, sampleRate, blockAlign, bitsPerSample, validBitsPerSample };
}
