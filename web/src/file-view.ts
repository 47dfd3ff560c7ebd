/**
 * A reconstructed file with syntax highlighting (highlight.js, its common languages) and line numbers in a gutter.
 * The file's language from the graph picks the grammar; unknown languages and very large files stay plain text.
 */
import hljs from 'highlight.js/lib/common';
import { el } from './dom.ts';

const ALIASES: Readonly<Record<string, string>> = {
  c_sharp: 'csharp',
  csharp: 'csharp',
  tsx: 'typescript',
  jsx: 'javascript',
  shell: 'bash',
  sh: 'bash',
  text: 'plaintext',
};
/** Above this size highlighting would stall the page; the text is shown plain. */
const HIGHLIGHT_LIMIT = 512 * 1024;

export function languageFor(language: string): string | undefined {
  const name = ALIASES[language] ?? language;
  return name && hljs.getLanguage(name) ? name : undefined;
}

/** `line`: a line to mark (a search hit's), its number shown in bold and scrolled to by the caller. */
export function renderFile(content: string, language: string, truncated: boolean, line?: number): HTMLElement {
  const lines = content.endsWith('\n') ? content.slice(0, -1).split('\n') : content.split('\n');
  const gutter = el('pre', { class: 'gutter', 'aria-hidden': 'true' });
  const numbers = lines.map((_, i) => String(i + 1));
  if (line !== undefined && line >= 1 && line <= lines.length) {
    gutter.append(
      numbers.slice(0, line - 1).join('\n') + (line > 1 ? '\n' : ''),
      el('mark', { class: 'line-mark' }, String(line)),
      line < lines.length ? '\n' + numbers.slice(line).join('\n') : '',
    );
  } else {
    gutter.textContent = numbers.join('\n');
  }
  const code = el('code', { class: 'hljs' });
  const lang = languageFor(language);
  if (lang && content.length <= HIGHLIGHT_LIMIT) {
    // highlight.js escapes the source text; its output holds only its own <span class="hljs-…"> markup.
    code.innerHTML = hljs.highlight(content, { language: lang, ignoreIllegals: true }).value;
    code.classList.add(`language-${lang}`);
  } else {
    code.textContent = content;
  }
  return el(
    'div',
    { class: 'file-view', 'data-lines': String(lines.length) },
    truncated ? el('p', { class: 'warning' }, 'The file is longer than the service returns; it was cut.') : null,
    el('div', { class: 'file-body' }, gutter, el('pre', { class: 'code' }, code)),
  );
}
