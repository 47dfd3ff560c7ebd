/**
 * Request-body and path-parameter validation for the ingestion component: the one validator of the service
 * (lib/validate.ts, shared with the graph component), plus the git-ref rule of `POST /syncs`.
 */
export {
  bodyBool,
  bodyInt,
  bodyObject,
  bodyString,
  bodyUuid,
  pathBigint,
  pathUuid,
  readBody,
  type Body,
} from '../../lib/validate.ts';

/** A git ref as `git check-ref-format --allow-onelevel` accepts it (branch, tag, refs/..., or a commit id). */
export function isGitRef(v: string): boolean {
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if (c <= 0x20 || c === 0x7f) return false;
  }
  if (/[~^:?*[\\]/.test(v)) return false;
  if (v.startsWith('/') || v.startsWith('-') || v.startsWith('.') || v.endsWith('/') || v.endsWith('.')) return false;
  if (v.endsWith('.lock') || v.includes('..') || v.includes('@{') || v.includes('//') || v.includes('/.')) return false;
  return v !== '@';
}
