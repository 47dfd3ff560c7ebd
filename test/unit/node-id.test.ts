import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeNodeId, encodeNodeId } from '../../lib/node-id.ts';
import { InvalidArgumentError } from '../../lib/errors.ts';

const SRC = '0b6f7c1e-6a3b-4c1e-9a57-2f1d7f3c9e10';

describe('node ids', () => {
  for (const path of [
    'a/b/c.ts',
    'docs/my file.md',
    'src/日本語/ファイル.py',
    'pct/100%.txt',
    'a:b/c:d.ts',
    'summary',
    'x/file',
  ]) {
    it(`round-trips ${JSON.stringify(path)}`, () => {
      const id = encodeNodeId(SRC, path);
      assert.equal(id, `src_${SRC}:${path}`);
      assert.deepEqual(decodeNodeId(id), { sourceId: SRC, filePath: path });
      // Survives the URL path round trip a client performs.
      assert.deepEqual(decodeNodeId(decodeURIComponent(encodeURIComponent(id))), { sourceId: SRC, filePath: path });
    });
  }

  for (const bad of ['', 'src_', `${SRC}:a.ts`, `src_${SRC}`, `src_${SRC}:`, 'src_not-a-uuid:a.ts', `src_${SRC}a.ts`]) {
    it(`rejects ${JSON.stringify(bad)} with the field named`, () => {
      assert.throws(
        () => decodeNodeId(bad),
        (err: unknown) => err instanceof InvalidArgumentError && err.field === 'node_id' && err.status === 400,
      );
    });
  }
});
