/**
 * A small XML well-formedness checker and parser for tests (JUnit output): one root, matched
 * tags, quoted unique attributes, only the five predefined entities and character references,
 * no raw `<` or `&` in text or attribute values, no characters XML forbids.
 */
export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  text: string;
}

const ENTITY = /&(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);/g;
const NAME = /^[A-Za-z_][\w.-]*(?::[\w.-]+)?/;

function decode(raw: string, where: string): string {
  if (raw.replace(ENTITY, '').includes('&')) throw new Error(`${where}: bare & or unknown entity`);
  if (raw.includes('<')) throw new Error(`${where}: raw < in text or attribute`);
  return raw.replace(
    ENTITY,
    (e) =>
      ({ '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&apos;': "'" })[e] ??
      String.fromCodePoint(e[2] === 'x' ? parseInt(e.slice(3, -1), 16) : parseInt(e.slice(2, -1), 10)),
  );
}

export function parseXml(xml: string): XmlElement {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/.test(xml)) throw new Error('character not allowed in XML');
  let i = 0;
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  const skipProlog = /^\s*<\?xml[^?]*\?>/.exec(xml);
  if (skipProlog) i = skipProlog[0].length;
  while (i < xml.length) {
    const lt = xml.indexOf('<', i);
    const text = xml.slice(i, lt < 0 ? xml.length : lt);
    if (stack.length) stack.at(-1)!.text += decode(text, `text at ${i}`);
    else if (text.trim()) throw new Error(`text outside the root element at ${i}`);
    if (lt < 0) break;
    if (xml.startsWith('<!--', lt)) {
      const end = xml.indexOf('-->', lt);
      if (end < 0) throw new Error('unterminated comment');
      i = end + 3;
      continue;
    }
    if (xml.startsWith('<![CDATA[', lt)) {
      const end = xml.indexOf(']]>', lt);
      if (end < 0 || !stack.length) throw new Error('bad CDATA');
      stack.at(-1)!.text += xml.slice(lt + 9, end);
      i = end + 3;
      continue;
    }
    const gt = xml.indexOf('>', lt);
    if (gt < 0) throw new Error(`unterminated tag at ${lt}`);
    const tag = xml.slice(lt + 1, gt);
    i = gt + 1;
    if (tag.startsWith('/')) {
      const name = tag.slice(1).trim();
      const open = stack.pop();
      if (!open || open.name !== name) throw new Error(`</${name}> does not close <${open?.name ?? 'nothing'}>`);
      continue;
    }
    const selfClosing = tag.endsWith('/');
    const body = selfClosing ? tag.slice(0, -1) : tag;
    const name = NAME.exec(body)?.[0];
    if (!name) throw new Error(`bad tag name at ${lt}`);
    const attrs: Record<string, string> = {};
    let rest = body.slice(name.length);
    while (rest.trim()) {
      const m = /^\s+([A-Za-z_][\w.:-]*)\s*=\s*("([^"]*)"|'([^']*)')/.exec(rest);
      if (!m) throw new Error(`bad attribute in <${name}>: ${rest.slice(0, 40)}`);
      if (m[1]! in attrs) throw new Error(`duplicate attribute ${m[1]} in <${name}>`);
      attrs[m[1]!] = decode(m[3] ?? m[4] ?? '', `attribute ${m[1]} of <${name}>`);
      rest = rest.slice(m[0].length);
    }
    const element: XmlElement = { name, attrs, children: [], text: '' };
    if (stack.length) stack.at(-1)!.children.push(element);
    else if (root) throw new Error('more than one root element');
    else root = element;
    if (!selfClosing) stack.push(element);
  }
  if (stack.length) throw new Error(`<${stack.at(-1)!.name}> is never closed`);
  if (!root) throw new Error('no root element');
  return root;
}
