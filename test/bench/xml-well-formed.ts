// A small XML well-formedness check for the SVG the bench writes: tags nest and close, attribute
// values are quoted, text holds no bare '<' or '&'. Not a validating parser; enough to catch a
// chart a browser would refuse.

export function xmlProblems(xml: string): string[] {
  const problems: string[] = [];
  const open: string[] = [];
  const token =
    /<(\/?)([A-Za-z][\w:.-]*)((?:\s+[\w:.-]+\s*=\s*(?:"[^"<]*"|'[^'<]*'))*)\s*(\/?)>|<!--[\s\S]*?-->|<\?[\s\S]*?\?>|<|&(?!(?:amp|lt|gt|quot|apos|#\d+|#x[\da-fA-F]+);)/g;
  for (let m; (m = token.exec(xml));) {
    const [whole, closing, name, , selfClosing] = m;
    if (whole === '<') {
      problems.push(`malformed tag at ${m.index}: ${xml.slice(m.index, m.index + 30)}`);
      continue;
    }
    if (whole.startsWith('&')) {
      problems.push(`bare & at ${m.index}`);
      continue;
    }
    if (name === undefined) continue;
    if (closing === '/') {
      const expected = open.pop();
      if (expected !== name) problems.push(`</${name}> at ${m.index} closes <${expected ?? 'nothing'}>`);
    } else if (selfClosing !== '/') open.push(name);
  }
  if (open.length > 0) problems.push(`unclosed: ${open.join(', ')}`);
  return problems;
}
