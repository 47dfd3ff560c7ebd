/**
 * Loads a workflow history saved as JSON (`temporal workflow show --output json`, scripts/capture-histories.ts).
 * The SDK's own historyFromJSON (in @temporalio/common) fails on this install with "type must be a Type": npm gave
 * @temporalio/common and @temporalio/proto two copies of protobufjs 8 (a 7.x is hoisted for @grpc/proto-loader),
 * and the JSON reader of one copy does not accept the other's types. So the reader here is taken from the copy
 * @temporalio/proto itself uses, whatever the layout.
 */
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import type { temporal } from '@temporalio/proto';

type History = temporal.api.history.v1.History;
interface ProtoRoot {
  lookupType(name: string): unknown;
}

const fromProto = createRequire(createRequire(import.meta.url).resolve('@temporalio/proto'));
const { fromJson } = fromProto('protobufjs/ext/protojson') as {
  fromJson: (type: unknown, json: unknown, options?: { ignoreUnknownFields?: boolean }) => History | null;
};
const { patchProtobufRoot } = fromProto('@temporalio/proto/lib/patch-protobuf-root') as {
  patchProtobufRoot: (root: unknown) => ProtoRoot;
};
const historyType = patchProtobufRoot(fromProto('@temporalio/proto')).lookupType('temporal.api.history.v1.History');

export function loadHistory(file: URL | string): History {
  const json: unknown = JSON.parse(readFileSync(file, 'utf8'));
  const history = fromJson(historyType, json, { ignoreUnknownFields: true });
  if (!history) throw new TypeError(`${String(file)} holds no history`);
  return history;
}

export function historyFromText(text: string): History {
  const history = fromJson(historyType, JSON.parse(text), { ignoreUnknownFields: true });
  if (!history) throw new TypeError('no history');
  return history;
}
