/**
 * XML for tests (JUnit output), read by saxes, a strict XML 1.0 parser: any well-formedness
 * error (unmatched tags, a duplicate or unquoted attribute, a bare `&`, a character XML forbids,
 * a second root) throws.
 */
import { SaxesParser } from 'saxes';

export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  text: string;
}

/** The document's root element; throws on the first well-formedness error. */
export function parseXml(xml: string): XmlElement {
  const parser = new SaxesParser();
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  let error: Error | undefined;
  parser.on('error', (e) => {
    error ??= e;
  });
  parser.on('opentag', (tag) => {
    const element: XmlElement = { name: tag.name, attrs: { ...tag.attributes }, children: [], text: '' };
    const parent = stack.at(-1);
    if (parent) parent.children.push(element);
    else root = element;
    stack.push(element);
  });
  parser.on('closetag', () => {
    stack.pop();
  });
  const addText = (text: string) => {
    const open = stack.at(-1);
    if (open) open.text += text;
  };
  parser.on('text', addText);
  parser.on('cdata', addText);
  parser.write(xml).close();
  if (error) throw error;
  if (!root) throw new Error('no root element');
  return root;
}
