/** What a truth resolver returns. */
export interface Truth {
  /** The tool and the assumptions it ran with, printed with the figures. */
  tool: string;
  /** Files the tool analysed (repository-relative); engine edges from other files are not compared. */
  scope: Set<string>;
  /** One entry per import: the files that would satisfy it (several when it names a package), empty if external. */
  items: Array<{ from: string; targets: Set<string> }>;
  /** Compare per unit instead of per file (Go: per package directory). */
  group?: (file: string) => string;
  /**
   * Precision for a language whose tool yields only part of the edges (Rust: the module tree): an engine edge that
   * matches no item still counts as right when this says the tool allows it.
   */
  plausible?: (from: string, to: string) => boolean;
  /** Which engine targets count (e.g. Go compares non-test .go targets only). */
  targetFilter?: (target: string, language: string) => boolean;
}

export function parseJsonLines(text: string): Array<{ from: string; targets: string[] }> {
  return text
    .split('\n')
    .filter((l) => l.trim().length > 0)
    .map((l) => JSON.parse(l) as { from: string; targets: string[] });
}
