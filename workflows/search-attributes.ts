/**
 * The custom search attributes of sync workflows (registered as Keyword by scripts/stack/temporal.sh). One
 * definition, in temporal/ingestion/start-options.ts (pure: only @temporalio/common); re-exported for the workflow.
 */
export { CKG_SOURCE_ID, CKG_SOURCE_NAME, CKG_SYNC_ID, CKG_TRIGGER } from '../temporal/ingestion/start-options.ts';
