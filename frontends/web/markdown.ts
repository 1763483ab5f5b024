// A small, safe subset of Markdown for comments (issue #26), rendered to JSX nodes, so every piece
// of text goes through the renderer's escaping and no HTML the writer typed ever reaches the page.
// Blocks: paragraphs (single newlines are line breaks), fenced code (```), bullet lists (- or *).
// Inline: `code`, **bold**, *italic* or _italic_, and [links](https://…) to http(s) and mailto only.
// Linear time: each closing delimiter is searched for once from any position (see Finder), and
// nothing nests (bold, italic and link text are plain text).
import { h, type Child } from './jsx.js';

/** The longest text rendered; comments are capped below it at write time. */
const MAX_CHARS = 20_000;
const SAFE_URL = /^(?:https?:\/\/|mailto:)[^\s]{1,2000}$/i;

/**
 * indexOf with memory: a search for a delimiter that found nothing from `from` finds nothing from
 * any later position, and one that found `at` answers again for any `from` up to `at`; positions
 * only move forward, so all searches of one text cost one pass per delimiter.
 */
class Finder {
  private readonly found = new Map<string, number>();
  constructor(private readonly text: string) {}

  next(delimiter: string, from: number): number {
    const known = this.found.get(delimiter);
    if (known !== undefined && (known === -1 || known >= from)) return known;
    const at = this.text.indexOf(delimiter, from);
    this.found.set(delimiter, at);
    return at;
  }
}

function inline(text: string): Child[] {
  const out: Child[] = [];
  const finder = new Finder(text);
  let plain = '';
  let i = 0;
  const flush = () => {
    if (plain) out.push(plain);
    plain = '';
  };
  while (i < text.length) {
    const c = text[i];
    if (c === '`') {
      const end = finder.next('`', i + 1);
      if (end > i + 1) {
        flush();
        out.push(h('code', null, text.slice(i + 1, end)));
        i = end + 1;
        continue;
      }
    } else if (c === '*' && text[i + 1] === '*') {
      const end = finder.next('**', i + 2);
      if (end > i + 2) {
        flush();
        out.push(h('strong', null, text.slice(i + 2, end)));
        i = end + 2;
        continue;
      }
    } else if (c === '*' || c === '_') {
      const end = finder.next(c, i + 1);
      if (end > i + 1) {
        flush();
        out.push(h('em', null, text.slice(i + 1, end)));
        i = end + 1;
        continue;
      }
    } else if (c === '[') {
      const close = finder.next('](', i + 1);
      const end = close === -1 ? -1 : finder.next(')', close + 2);
      // The link text must not hold another `[`: "[a [b](u)" links only "b".
      const inner = finder.next('[', i + 1);
      if (close > i && end > close && (inner === -1 || inner > close)) {
        const url = text.slice(close + 2, end);
        if (SAFE_URL.test(url)) {
          flush();
          out.push(h('a', { href: url, rel: 'nofollow noopener noreferrer' }, text.slice(i + 1, close)));
          i = end + 1;
          continue;
        }
      }
    }
    plain += c;
    i++;
  }
  flush();
  return out;
}

/** Lines of one paragraph, with a <br> between them. */
function paragraph(lines: string[]): Child {
  return h('p', null, ...lines.flatMap((line, i) => (i === 0 ? inline(line) : [h('br', null), ...inline(line)])));
}

/** The comment as nodes: safe to render, whatever it holds. */
export function renderMarkdown(source: string): Child[] {
  const lines = source.slice(0, MAX_CHARS).replace(/\r\n?/g, '\n').split('\n');
  const blocks: Child[] = [];
  let para: string[] = [];
  let list: string[] = [];
  const end = () => {
    if (para.length) blocks.push(paragraph(para));
    if (list.length) blocks.push(h('ul', null, ...list.map((item) => h('li', null, ...inline(item)))));
    para = [];
    list = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line.startsWith('```')) {
      end();
      const code: string[] = [];
      for (i++; i < lines.length && !lines[i].startsWith('```'); i++) code.push(lines[i]);
      blocks.push(h('pre', null, h('code', null, code.join('\n'))));
      continue;
    }
    const item = /^\s{0,3}[-*] (.*)$/.exec(line);
    if (item) {
      if (para.length) end();
      list.push(item[1]);
    } else if (line.trim() === '') end();
    else {
      if (list.length) end();
      para.push(line);
    }
  }
  end();
  return blocks;
}
