/** The error answers the route declarations share (each a description with the one error body, lib/api/schemas.ts). */
import type { ResponseDef } from '../route.ts';
import { ErrorBody } from '../schemas.ts';

/** An error answer: its description, the one error body. */
export const errorReply = (description: string): ResponseDef => ({ description, schema: ErrorBody });

export const INVALID_PARAMETER = errorReply('INVALID_ARGUMENT: `error.field` names the parameter.');
export const INVALID_FIELD = errorReply(
  'INVALID_ARGUMENT: a body field or path parameter is invalid; `field` names it.',
);
export const NOT_FOUND = errorReply('NOT_FOUND');
export const NOT_FOUND_RUN = errorReply('NOT_FOUND: the sync, source or schedule does not exist.');
export const GRAPH_CLEANED = errorReply('FAILED_PRECONDITION: the sync was cleaned, its graph is gone.');
export const READ_TIMEOUT = errorReply('TIMEOUT: the read exceeded GRAPH_QUERY_TIMEOUT_SECONDS.');
export const TEMPORAL_UNAVAILABLE = errorReply(
  'UPSTREAM_UNAVAILABLE (with Retry-After): the Temporal service could not be reached; see each operation. Every ' +
    'Temporal-backed write first checks that Temporal answers (TEMPORAL_CONNECT_TIMEOUT_MS) and changes nothing ' +
    'when it does not.',
);
