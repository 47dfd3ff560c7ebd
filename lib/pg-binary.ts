/**
 * Query parameters in PostgreSQL's binary array format (array_recv: one dimension, lower bound 1, no nulls).
 * node-postgres sends a Buffer parameter in binary format, so `unnest($n::text[])` receives the elements as bytes:
 * no JSON or array-literal escaping in Node and no parsing in PostgreSQL (textrecv copies each element and checks its
 * encoding). Used by the writers for their large columns (chunk content).
 */

/** TEXTOID: the element type a binary text[] parameter names. */
const TEXT_OID = 25;

/** Strings as one binary text[] value, to be sent as a query parameter and read as `$n::text[]`. */
export function textArray(values: readonly string[]): Buffer {
  let size = 20;
  for (const v of values) size += 4 + Buffer.byteLength(v, 'utf8');
  const out = Buffer.allocUnsafe(size);
  out.writeInt32BE(1, 0); // dimensions
  out.writeInt32BE(0, 4); // no nulls
  out.writeUInt32BE(TEXT_OID, 8);
  out.writeInt32BE(values.length, 12);
  out.writeInt32BE(1, 16); // lower bound
  let o = 20;
  for (const v of values) {
    const n = out.write(v, o + 4, 'utf8');
    out.writeInt32BE(n, o);
    o += 4 + n;
  }
  return out;
}
