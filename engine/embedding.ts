/** Embedding inputs of spec processing rules 6 and 7. */
export const EMBEDDING_PREFIX = 'search_document: ';
export const EMBEDDING_MAX_CHARS = 1400;
export const FILE_EMBEDDING_LINES = 100;

function truncate(text: string): string {
  if (text.length <= EMBEDDING_MAX_CHARS) return text;
  // Never cut a surrogate pair in half: an unpaired surrogate is not valid text for the embedding endpoint.
  let end = EMBEDDING_MAX_CHARS;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return text.slice(0, end);
}

/** `search_document: ` + the chunk content (which already starts with its breadcrumb), at most 1400 characters. */
export function chunkEmbeddingInput(content: string): string {
  return truncate(EMBEDDING_PREFIX + content);
}

export interface FileEmbeddingFields {
  path: string;
  type: string;
  language: string;
  /** The decoded file text ('' for binary or unread files). */
  content: string;
}

/** `search_document: path: <p>\ntype: <t>\nlanguage: <l>\n` + the first 100 lines, at most 1400 characters. */
export function fileEmbeddingInput(file: FileEmbeddingFields): string {
  let end = 0;
  for (let i = 0; i < FILE_EMBEDDING_LINES; i++) {
    const nl = file.content.indexOf('\n', end);
    if (nl === -1) {
      end = file.content.length;
      break;
    }
    end = nl + 1;
  }
  const head = file.content.slice(0, end);
  return truncate(`${EMBEDDING_PREFIX}path: ${file.path}\ntype: ${file.type}\nlanguage: ${file.language}\n${head}`);
}
