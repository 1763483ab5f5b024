// The comment renderer (src/web/markdown.ts): the Markdown subset, everything else as text, no
// HTML or script URL through, and linear time on hostile input.
import { describe, expect, it } from 'vitest';
import { renderToString } from '../../frontends/web/jsx.js';
import { renderMarkdown } from '../../frontends/web/markdown.js';

const render = (text: string) => renderToString(renderMarkdown(text));

describe('comment Markdown', () => {
  it('renders the subset: emphasis, code, links, lists, fenced code, line breaks', () => {
    expect(render('a **b** *c* _d_ `e`')).toBe('<p>a <strong>b</strong> <em>c</em> <em>d</em> <code>e</code></p>');
    expect(render('[docs](https://example.com/a?b=1&c=2)')).toBe(
      '<p><a href="https://example.com/a?b=1&amp;c=2" rel="nofollow noopener noreferrer">docs</a></p>',
    );
    expect(render('- one\n- **two**\n\nafter')).toBe('<ul><li>one</li><li><strong>two</strong></li></ul><p>after</p>');
    expect(render('```\n<b>x</b>\n```')).toBe('<pre><code>&lt;b&gt;x&lt;/b&gt;</code></pre>');
    expect(render('line one\nline two')).toBe('<p>line one<br>line two</p>');
  });

  it('keeps HTML, script URLs and broken syntax as text', () => {
    const html = render('<img src=x onerror="alert(1)"> <script>alert(2)</script>');
    expect(html).not.toMatch(/<img|<script/);
    expect(html).toContain('&lt;img src=x onerror=');
    expect(render('[x](javascript:alert(1))')).not.toContain('<a');
    expect(render('[x](data:text/html,hi)')).not.toContain('<a');
    expect(render('[x](https://a.example/"onmouseover="alert(1))')).not.toContain('onmouseover="');
    expect(render('**open and `unclosed')).toBe('<p>**open and `unclosed</p>');
  });

  it('renders hostile input in linear time', () => {
    for (const unit of ['[', '*', '**', '`', '_', '[a](', '](', '[x]']) {
      const text = unit.repeat(Math.ceil(20_000 / unit.length));
      const started = performance.now();
      render(text);
      expect(performance.now() - started, unit).toBeLessThan(500);
    }
  });
});
