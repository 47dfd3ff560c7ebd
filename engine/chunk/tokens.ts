/** The spec's token estimate: words x 1.3, rounded up. A word is a maximal run of non-whitespace characters. */
export function countWords(text: string): number {
  let words = 0;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const space = c === 32 || c === 10 || c === 13 || c === 9 || c === 12 || c === 11;
    if (!space && !inWord) words++;
    inWord = !space;
  }
  return words;
}

export function tokensForWords(words: number): number {
  return Math.ceil((words * 13) / 10);
}

export function estimateTokens(text: string): number {
  return tokensForWords(countWords(text));
}

/** The chunk budget and overlap of spec part 8. */
export const CHUNK_BUDGET_TOKENS = 512;
export const CHUNK_OVERLAP_TOKENS = 64;
