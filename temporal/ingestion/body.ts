/**
 * Request-body and path-parameter validation for the ingestion component: the one validator of the service
 * (lib/validate.ts, shared with the graph component; git refs: lib/git-ref.ts).
 */
export {
  bodyBool,
  bodyGitRef,
  bodyInt,
  bodyObject,
  bodyString,
  bodyUuid,
  pathBigint,
  pathUuid,
  readBody,
  type Body,
} from '../../lib/validate.ts';
