// DOM helpers for the console. Everything on the page is built with createElement and textContent:
// nothing the node answers (queue names, message bodies, attributes, errors) is ever parsed as
// HTML, so an untrusted body is shown as the text it is.

/**
 * An element: h('a', { href: '#/x', class: 'link' }, 'text', child…). Attributes are set with
 * setAttribute (on* handlers go through `on: { click() {} }`); children are nodes or text.
 */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  setUp(element, attributes, children);
  return element;
}

const svgNamespace = 'http://www.w3.org/2000/svg';

export function svg(tag, attributes = {}, ...children) {
  const element = document.createElementNS(svgNamespace, tag);
  setUp(element, attributes, children);
  return element;
}

function setUp(element, attributes, children) {
  for (const [name, value] of Object.entries(attributes)) {
    if (name === 'on') for (const [event, handler] of Object.entries(value)) element.addEventListener(event, handler);
    else if (value === true) element.setAttribute(name, '');
    else if (value !== false && value !== undefined && value !== null) element.setAttribute(name, String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces the children of `element`. */
export function fill(element, ...children) {
  element.replaceChildren();
  setUp(element, {}, children);
  return element;
}

/** A link to a queue's page; the name is URL-encoded in the hash and shown as text. */
export function queueLink(name) {
  return h('a', { href: `#/queues/${encodeURIComponent(name)}`, class: 'queue-link' }, name);
}

/** 0s, 42s, 5m12s, 3h04m, 2d03h. */
export function formatAge(seconds) {
  if (!Number.isFinite(seconds)) return '-';
  const s = Math.max(0, Math.floor(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  if (s < 86400) return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
  return `${Math.floor(s / 86400)}d${String(Math.floor((s % 86400) / 3600)).padStart(2, '0')}h`;
}

export function formatNumber(value) {
  return typeof value === 'number' ? value.toLocaleString('en-US') : '-';
}
