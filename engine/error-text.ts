/**
 * An error as an issue message may show it: without the worker's paths (docs/security.md). Node's file-system errors
 * read `ENOENT: no such file or directory, realpath '/var/lib/ckg/clones/.../a/link'`, the worker's clone folder
 * included; sync issues carry repository-relative paths only (the issue's file_path says which file).
 */
export function errorText(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const { code, syscall } = err as NodeJS.ErrnoException;
  if (typeof code === 'string' && typeof syscall === 'string') {
    // "<CODE>: <description>, <syscall> '<path>'[ -> '<dest>']" → "<CODE>: <description> (<syscall>)"
    const cut = err.message.indexOf(`, ${syscall} '`);
    return `${cut === -1 ? `${code}: ${err.message.replace(/'\/[^']*'/g, "'…'")}` : err.message.slice(0, cut)} (${syscall})`;
  }
  return err.message.replace(/'\/[^']*'/g, "'…'");
}
