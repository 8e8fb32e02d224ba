import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { escapeHtml, jsonData, viewerDocument } from '../../../src/trace/viewer/viewer-page.js';

const config = { mode: 'static' as const, live: false, traces: [], current: 'x' };

describe('viewerDocument', () => {
  it('allows exactly its inline script and style, by hash', () => {
    const { html, csp } = viewerDocument('run', config);
    const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((match) => match[1]!);
    const styles = [...html.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((match) => match[1]!);
    expect(scripts).toHaveLength(1);
    expect(styles).toHaveLength(1);
    const hash = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;
    expect(csp).toContain(`script-src ${hash(scripts[0]!)};`);
    expect(csp).toContain(`style-src ${hash(styles[0]!)};`);
    expect(csp).toMatch(/^default-src 'none'; /);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe');
  });

  it('embeds a model whose text cannot close its block or the page', () => {
    const hostile = '</script><script>alert(1)</script><!-- \u2028';
    const { html } = viewerDocument(hostile, config, { text: hostile } as never);
    expect(html).not.toContain('</script><script>alert(1)');
    expect(html).toContain('&lt;/script&gt;'); // the title
    const block = /<script type="application\/json" id="trace-data">(.*?)<\/script>/.exec(
      html,
    )?.[1];
    expect(JSON.parse(block!)).toEqual({ text: hostile });
  });

  it('escapes for HTML text and attributes, and JSON for script blocks', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe(
      '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;',
    );
    expect(jsonData({ a: '<&>' })).toBe('{"a":"\\u003c\\u0026\\u003e"}');
  });
});
