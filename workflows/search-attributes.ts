/**
 * The custom search attributes of sync workflows (registered as Keyword by scripts/stack/temporal.sh), shared by
 * the workflow (which updates CkgSyncId when it runs a retried sync) and the starter helper in temporal/.
 */
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

export const CKG_SOURCE_ID = defineSearchAttributeKey('CkgSourceId', SearchAttributeType.KEYWORD);
export const CKG_SOURCE_NAME = defineSearchAttributeKey('CkgSourceName', SearchAttributeType.KEYWORD);
export const CKG_SYNC_ID = defineSearchAttributeKey('CkgSyncId', SearchAttributeType.KEYWORD);
export const CKG_TRIGGER = defineSearchAttributeKey('CkgTrigger', SearchAttributeType.KEYWORD);
