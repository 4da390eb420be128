// A strict reader of the small XML the console draws (inline SVG): it throws on anything that is not
// well-formed (an unclosed or crossed tag, an unquoted or repeated attribute, a raw `<` or a bare `&`
// in text or a value) and returns the element tree, so a test can count and inspect what was drawn.
// No DTDs, comments, CDATA or processing instructions: the charts use none, and one would be refused.

export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  /** The element's own text, entities decoded. */
  text: string;
}

const NAME = /^[A-Za-z_][\w.:-]*/;
const ENTITY = /^&(amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);/;
const DECODE: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decode(raw: string, where: string): string {
  let out = '';
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i] as string;
    if (c === '<') throw new Error(`raw < in ${where}`);
    if (c !== '&') {
      out += c;
      continue;
    }
    const match = ENTITY.exec(raw.slice(i));
    if (!match) throw new Error(`bare & in ${where}`);
    const entity = match[1] as string;
    out += entity.startsWith('#x')
      ? String.fromCodePoint(Number.parseInt(entity.slice(2), 16))
      : entity.startsWith('#')
        ? String.fromCodePoint(Number(entity.slice(1)))
        : DECODE[entity];
    i += match[0].length - 1;
  }
  return out;
}

export function parseStrictXml(source: string): XmlElement {
  let at = 0;
  const root: XmlElement = { name: '#document', attributes: {}, children: [], text: '' };
  const stack: XmlElement[] = [root];
  const current = () => stack[stack.length - 1] as XmlElement;
  while (at < source.length) {
    const open = source.indexOf('<', at);
    const text = source.slice(at, open === -1 ? source.length : open);
    if (text.includes('>')) throw new Error(`raw > in text near ${at}`);
    if (text.trim() !== '') {
      if (stack.length === 1) throw new Error('text outside the root element');
      current().text += decode(text, 'text');
    }
    if (open === -1) break;
    const close = source.indexOf('>', open);
    if (close === -1) throw new Error(`unclosed tag at ${open}`);
    const tag = source.slice(open + 1, close);
    at = close + 1;
    if (tag.startsWith('/')) {
      const name = tag.slice(1).trim();
      const element = stack.pop();
      if (!element || element === root || element.name !== name)
        throw new Error(`</${name}> closes <${element?.name}>`);
      continue;
    }
    const selfClosing = tag.endsWith('/');
    let body = selfClosing ? tag.slice(0, -1) : tag;
    const name = NAME.exec(body)?.[0];
    if (!name) throw new Error(`not an element: <${tag}>`);
    body = body.slice(name.length);
    const attributes: Record<string, string> = {};
    for (;;) {
      const space = /^\s*/.exec(body)?.[0] ?? '';
      body = body.slice(space.length);
      if (body === '') break;
      if (space === '') throw new Error(`no space before an attribute of <${name}>`);
      const match = /^([A-Za-z_][\w.:-]*)="([^"]*)"/.exec(body);
      if (!match) throw new Error(`malformed attribute in <${name}>: ${body.slice(0, 30)}`);
      const [all, key, value] = match as unknown as [string, string, string];
      if (Object.hasOwn(attributes, key)) throw new Error(`repeated attribute ${key} in <${name}>`);
      attributes[key] = decode(value, `attribute ${key}`);
      body = body.slice(all.length);
    }
    const element: XmlElement = { name, attributes, children: [], text: '' };
    if (stack.length === 1 && root.children.length > 0) throw new Error('more than one root element');
    current().children.push(element);
    if (!selfClosing) stack.push(element);
  }
  if (stack.length !== 1) throw new Error(`<${current().name}> is never closed`);
  const [only] = root.children;
  if (!only) throw new Error('no root element');
  return only;
}

/** Every element under (and including) `element`, depth first. */
export function allElements(element: XmlElement): XmlElement[] {
  return [element, ...element.children.flatMap(allElements)];
}
