import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import { Readable, Writable } from 'node:stream';
import zlib from 'node:zlib';
import {
  CACHED_LEVELS,
  ONE_OFF_LEVELS,
  SplitBody,
  brotliUncompressedHeader,
} from '../../graph-api/graph/split-body.ts';

/** JSON-ish text of about `n` characters: repetitive like the merged graph, with some noise and non-ASCII. */
function head(n: number): string {
  const parts: string[] = ['{"nodes":['];
  let len = parts[0]!.length;
  for (let i = 0; len < n; i++) {
    const p = `{"data":{"id":"src_x:pkg${i % 97}/f${i}.ts","h":"${randomBytes(4).toString('hex')}","n":"é${i}"}},`;
    parts.push(p);
    len += p.length;
  }
  parts.push('],"meta":');
  return parts.join('');
}

/** Decodes with a streaming decompressor fed in small pieces, as an HTTP client reads a body. */
async function streamDecode(chunks: Buffer[], decoder: zlib.Gunzip | zlib.BrotliDecompress): Promise<string> {
  const all = Buffer.concat(chunks);
  const pieces: Buffer[] = [];
  for (let i = 0; i < all.length; i += 1000) pieces.push(all.subarray(i, i + 1000));
  const out: Buffer[] = [];
  await pipeline(
    Readable.from(pieces),
    decoder,
    new Writable({
      write(c: Buffer, _e, cb) {
        out.push(c);
        cb();
      },
    }),
  );
  return Buffer.concat(out).toString('utf8');
}

describe('split body: a cached head plus a per-request tail, as is, gzip or br', () => {
  const tails = ['', '}', '{"node_count":3,"edge_count":2,"sync_count":1,"query_ms":12}}', 'ü'.repeat(70_000)];
  for (const size of [0, 10, 70_000, 3_000_000]) {
    for (const levels of [CACHED_LEVELS, ONE_OFF_LEVELS]) {
      it(`head of ${size} characters, levels gzip ${levels.gzip} / br ${levels.br}`, async () => {
        const h = head(size);
        const body = new SplitBody(h, levels);
        for (const tail of tails) {
          const want = h + tail;
          assert.equal(Buffer.concat(await body.chunks('identity', tail)).toString('utf8'), want);
          await body.prepare('gzip');
          const gz = await body.chunks('gzip', tail);
          assert.equal(zlib.gunzipSync(Buffer.concat(gz)).toString('utf8'), want, 'gzip');
          assert.equal(await streamDecode(gz, zlib.createGunzip()), want, 'gzip, streamed');
          await body.prepare('br');
          const br = await body.chunks('br', tail);
          assert.equal(zlib.brotliDecompressSync(Buffer.concat(br)).toString('utf8'), want, 'br');
          assert.equal(await streamDecode(br, zlib.createBrotliDecompress()), want, 'br, streamed');
        }
      });
    }
  }

  it('compresses the head once, however many responses use it', async () => {
    const body = new SplitBody(head(200_000));
    const before = body.bytes;
    await Promise.all([body.prepare('gzip'), body.prepare('gzip'), body.prepare('br')]);
    const grown = body.bytes - before;
    assert.ok(grown > 0 && grown < before, `${grown} compressed bytes for a ${before}-byte head`);
    const [prefix] = await body.chunks('gzip', 'x');
    assert.equal((await body.chunks('gzip', 'y'))[0], prefix, 'the same prefix buffer is reused');
    assert.equal(body.bytes - before, grown);
  });

  it('encodes uncompressed brotli meta-block headers for 4, 5 and 6 nibbles', () => {
    // ISLAST=0, MNIBBLES=4 (00), MLEN-1=0, ISUNCOMPRESSED=1 → bit 19.
    assert.deepEqual([...brotliUncompressedHeader(1)], [0x00, 0x00, 0x08]);
    for (const n of [1, 255, 65_536, 65_537, 1 << 20, (1 << 20) + 1, 1 << 24]) {
      const data = randomBytes(n);
      // A whole brotli stream: WBITS (one 0 bit: window 2^16), the meta-block header shifted in after it (its
      // ISUNCOMPRESSED bit is the last meaningful one; the rest of the byte is padding), the data, the last block.
      const nibbles = n - 1 < 1 << 16 ? 4 : n - 1 < 1 << 20 ? 5 : 6;
      const hdr = brotliUncompressedHeader(n);
      assert.equal(hdr.length, Math.ceil((4 + 4 * nibbles) / 8));
      let bits = 0n;
      hdr.forEach((b, i) => (bits |= BigInt(b) << BigInt(8 * i)));
      bits <<= 1n;
      const width = Math.ceil((1 + 4 + 4 * nibbles) / 8);
      const start = Buffer.alloc(width);
      for (let i = 0; i < width; i++) start[i] = Number((bits >> BigInt(8 * i)) & 0xffn);
      const stream = Buffer.concat([start, data, Buffer.from([0x03])]);
      assert.deepEqual(zlib.brotliDecompressSync(stream), data, `${n} bytes`);
    }
    assert.throws(() => brotliUncompressedHeader(0), RangeError);
    assert.throws(() => brotliUncompressedHeader((1 << 24) + 1), RangeError);
  });
});
