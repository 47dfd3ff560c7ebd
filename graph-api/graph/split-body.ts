/**
 * A JSON response made of a large immutable head and a short tail that changes per request (the merged graph's
 * `meta`, whose query_ms is measured per request), sent as is or compressed, without re-encoding the head.
 *
 * - identity: the head is kept as UTF-8 bytes; a response is [head, tail] (no copy of the head).
 * - gzip (RFC 1952): the head is deflated once, ending with a sync flush (byte-aligned, not final). A response is
 *   that prefix, then the tail deflated on its own as a final raw-deflate block sequence (a fresh compressor needs no
 *   history), then the trailer: CRC-32 of head + tail (continued from the head's cached CRC) and the total length.
 * - br (RFC 7932): the head is compressed once with a flush (byte-aligned, at a meta-block boundary). A response is
 *   that prefix, then the tail as one uncompressed meta-block, then an empty last meta-block.
 *
 * So a repeated request for a cached head costs a few microseconds of compression, whatever the head's size.
 */
import { promisify } from 'node:util';
import zlib from 'node:zlib';

export type BodyEncoding = 'br' | 'gzip' | 'identity';

/** Encodings in the order the server offers them (smallest output first). */
export const ENCODINGS: readonly BodyEncoding[] = ['br', 'gzip', 'identity'];

export interface CompressionLevels {
  /** zlib level 1-9. */
  gzip: number;
  /** Brotli quality 0-11. */
  br: number;
}

/** For heads that are cached and served many times: compress well, once. */
export const CACHED_LEVELS: CompressionLevels = { gzip: 6, br: 5 };
/** For heads built for one response: compress fast. */
export const ONE_OFF_LEVELS: CompressionLevels = { gzip: 1, br: 1 };

const deflateRaw = promisify(zlib.deflateRaw);
const brotliCompress = promisify(zlib.brotliCompress);

/** gzip member header: magic, CM=deflate, no flags, no mtime, no extra flags, OS unknown. */
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff]);
/** Brotli: an empty meta-block with ISLAST=1, ISLASTEMPTY=1. */
const BROTLI_LAST_EMPTY = Buffer.from([0x03]);
/** An uncompressed brotli meta-block holds at most 2^24 bytes (MNIBBLES=6); the tail is far smaller. */
const BROTLI_MAX_UNCOMPRESSED = 1 << 24;

interface GzipPrefix {
  bytes: Buffer;
  crc: number;
}

/** The header of an uncompressed, non-last brotli meta-block of `length` bytes, padded to a byte boundary. */
export function brotliUncompressedHeader(length: number): Buffer {
  if (length < 1 || length > BROTLI_MAX_UNCOMPRESSED) throw new RangeError(`meta-block length ${length}`);
  // MNIBBLES: the fewest nibbles (4..6) that hold length - 1.
  const nibbles = length - 1 < 1 << 16 ? 4 : length - 1 < 1 << 20 ? 5 : 6;
  // Bits, least significant first: ISLAST=0 (1), MNIBBLES-4 (2), MLEN-1 (4 x nibbles), ISUNCOMPRESSED=1 (1).
  let bits = BigInt(nibbles - 4) << 1n;
  bits |= BigInt(length - 1) << 3n;
  bits |= 1n << BigInt(3 + 4 * nibbles);
  const width = Math.ceil((4 + 4 * nibbles) / 8);
  const out = Buffer.alloc(width);
  for (let i = 0; i < width; i++) out[i] = Number((bits >> BigInt(8 * i)) & 0xffn);
  return out;
}

export class SplitBody {
  readonly head: Buffer;
  private gzip: Promise<GzipPrefix> | undefined;
  private br: Promise<Buffer> | undefined;
  private compressedBytes = 0;

  constructor(
    head: string | Buffer,
    private readonly levels: CompressionLevels = CACHED_LEVELS,
  ) {
    this.head = typeof head === 'string' ? Buffer.from(head, 'utf8') : head;
  }

  /** Bytes held: the head and the compressed prefixes made so far. */
  get bytes(): number {
    return this.head.length + this.compressedBytes;
  }

  /** Compresses the head for `encoding` (once; concurrent callers share the work, which runs off the event loop). */
  async prepare(encoding: BodyEncoding): Promise<void> {
    if (encoding === 'gzip') await this.gzipPrefix();
    else if (encoding === 'br') await this.brotliPrefix();
  }

  /**
   * The response for `encoding`: chunks to write in order. Call `prepare(encoding)` first; the tail is encoded here
   * (synchronously: it is a few dozen bytes).
   */
  async chunks(encoding: BodyEncoding, tail: string): Promise<Buffer[]> {
    const tailBytes = Buffer.from(tail, 'utf8');
    if (encoding === 'identity') return [this.head, tailBytes];
    if (encoding === 'gzip') {
      const prefix = await this.gzipPrefix();
      const trailer = Buffer.alloc(8);
      trailer.writeUInt32LE(zlib.crc32(tailBytes, prefix.crc) >>> 0, 0);
      trailer.writeUInt32LE((this.head.length + tailBytes.length) % 2 ** 32, 4);
      return [prefix.bytes, zlib.deflateRawSync(tailBytes), trailer];
    }
    const prefix = await this.brotliPrefix();
    if (tailBytes.length === 0) return [prefix, BROTLI_LAST_EMPTY];
    return [prefix, brotliUncompressedHeader(tailBytes.length), tailBytes, BROTLI_LAST_EMPTY];
  }

  private gzipPrefix(): Promise<GzipPrefix> {
    this.gzip ??= (async () => {
      const deflated = await deflateRaw(this.head, {
        level: this.levels.gzip,
        finishFlush: zlib.constants.Z_SYNC_FLUSH,
      });
      const bytes = Buffer.concat([GZIP_HEADER, deflated]);
      this.compressedBytes += bytes.length;
      return { bytes, crc: zlib.crc32(this.head) };
    })();
    this.gzip.catch(() => {
      this.gzip = undefined;
    });
    return this.gzip;
  }

  private brotliPrefix(): Promise<Buffer> {
    this.br ??= (async () => {
      const bytes = await brotliCompress(this.head, {
        params: {
          [zlib.constants.BROTLI_PARAM_QUALITY]: this.levels.br,
          [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
          [zlib.constants.BROTLI_PARAM_SIZE_HINT]: this.head.length,
        },
        finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH,
      });
      this.compressedBytes += bytes.length;
      return bytes;
    })();
    this.br.catch(() => {
      this.br = undefined;
    });
    return this.br;
  }
}
