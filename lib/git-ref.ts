/**
 * The one check of git ref names the service accepts from its users (docs/security.md): a source's `default_branch`,
 * a sync's `ref`, and whatever names a branch later (webhook pushes). The rules are git's own
 * (`git check-ref-format --allow-onelevel`, so `main`, `v1.2`, `refs/heads/x` and commit ids pass), plus one of ours:
 * a name never starts with `-`, so that no value can ever be read by git as an option. The worker checks again
 * before it runs git (activities/sync/helpers/git-checkout.ts), so a row stored before this check existed is refused at
 * sync start instead of reaching git.
 */

/** Longest ref name accepted (bytes of UTF-8); git itself has no limit, file systems do (NAME_MAX per component). */
export const MAX_REF_BYTES = 255;

/** Why `name` is not an acceptable ref name, or undefined when it is. The reason reads after the field's name. */
export function gitRefProblem(name: string): string | undefined {
  if (name === '') return 'must not be empty';
  if (name.startsWith('-')) return "must not start with '-' (git would read it as an option)";
  if (Buffer.byteLength(name) > MAX_REF_BYTES) return `must be at most ${MAX_REF_BYTES} bytes long`;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c <= 0x20 || c === 0x7f) return 'must not contain spaces or control characters';
  }
  const bad = /[~^:?*[\\]/.exec(name);
  if (bad) return `must not contain ${JSON.stringify(bad[0])}`;
  if (name === '@') return "must not be '@'";
  if (name.includes('..')) return "must not contain '..'";
  if (name.includes('@{')) return "must not contain '@{'";
  if (name.startsWith('/') || name.endsWith('/') || name.includes('//'))
    return "must not start or end with '/' or contain '//'";
  if (name.endsWith('.')) return "must not end with '.'";
  for (const part of name.split('/')) {
    if (part.startsWith('.')) return "must not have a component starting with '.'";
    if (part.endsWith('.lock')) return "must not have a component ending with '.lock'";
  }
  return undefined;
}

/** Whether `name` is a ref name the service passes to git (see gitRefProblem). */
export function isGitRefName(name: string): boolean {
  return gitRefProblem(name) === undefined;
}

/** A full commit id (SHA-1 or SHA-256, lower-case hex), as git prints them. */
export function isCommitId(v: string): boolean {
  return /^[0-9a-f]{40}$|^[0-9a-f]{64}$/.test(v);
}
