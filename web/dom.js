// @ts-check
// Building and updating the page without a framework. Views build a fresh element tree with h()
// (HTML) and s() (SVG) on every refresh; morph() then brings the live DOM in line with it, touching
// only what changed, so rows, buttons and scroll positions stay put while the data updates. Text is
// always set as text (never parsed as HTML). Clicks are handled by delegation on `data-action`.

const SVG_NS = 'http://www.w3.org/2000/svg';

/**
 * @typedef {Node | string | number | null | undefined | false} Child
 * @typedef {Record<string, string | number | boolean | null | undefined>} Attrs
 */

/**
 * @param {Element} el
 * @param {Attrs | null | undefined} attrs
 * @param {Array<Child | Child[]>} children
 */
function fill(el, attrs, children) {
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === null || v === undefined || v === false) continue;
    el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(typeof c === 'object' ? c : document.createTextNode(String(c)));
  }
  return el;
}

/**
 * An HTML element.
 * @param {string} tag
 * @param {Attrs | null} [attrs]
 * @param {Array<Child | Child[]>} children
 * @returns {HTMLElement}
 */
export function h(tag, attrs, ...children) {
  return /** @type {HTMLElement} */ (fill(document.createElement(tag), attrs, children));
}

/**
 * An SVG element.
 * @param {string} tag
 * @param {Attrs | null} [attrs]
 * @param {Array<Child | Child[]>} children
 * @returns {SVGElement}
 */
export function s(tag, attrs, ...children) {
  return /** @type {SVGElement} */ (fill(document.createElementNS(SVG_NS, tag), attrs, children));
}

/** @param {Node} n */
const keyOf = (n) => (n instanceof Element ? n.getAttribute('data-key') : null);

/** @param {Node} a @param {Node} b */
const sameKind = (a, b) =>
  a.nodeType === b.nodeType && (!(a instanceof Element) || (b instanceof Element && a.namespaceURI === b.namespaceURI && a.tagName === b.tagName && keyOf(a) === keyOf(b)));

/**
 * Makes `live` look like `fresh` (same tag), reusing live nodes where they correspond: by
 * `data-key` where children have one, else by position. `fresh` is consumed.
 * @param {Element} live
 * @param {Element} fresh
 */
export function morph(live, fresh) {
  for (const { name } of [...live.attributes]) {
    // A <details> the user opened stays open.
    if (name === 'open' && live.tagName === 'DETAILS') continue;
    if (!fresh.hasAttribute(name)) live.removeAttribute(name);
  }
  for (const { name, value } of [...fresh.attributes]) {
    // ... and one the user closed stays closed: `open` only says how a <details> is first drawn.
    if (name === 'open' && live.tagName === 'DETAILS') continue;
    if (live.getAttribute(name) !== value) live.setAttribute(name, value);
  }
  morphChildren(live, fresh);
}

/**
 * Replaces the children of `live` with `children`, morphing where nodes correspond.
 * @param {Element} live
 * @param {Element | Array<Child | Child[]>} fresh the new children, or an element holding them
 */
export function morphChildren(live, fresh) {
  const next = Array.isArray(fresh) ? fill(document.createElement('div'), null, fresh) : fresh;
  /** @type {Map<string, Element>} */
  const keyed = new Map();
  for (const c of live.children) {
    const k = keyOf(c);
    if (k !== null) keyed.set(`${c.tagName}\u0000${k}`, c);
  }
  const wanted = [...next.childNodes];
  let i = 0;
  for (const n of wanted) {
    let cur = live.childNodes[i] ?? null;
    const k = keyOf(n);
    if (k !== null && n instanceof Element) {
      const match = keyed.get(`${n.tagName}\u0000${k}`);
      if (match && match !== cur) {
        live.insertBefore(match, cur);
        cur = match;
      }
    }
    if (cur && sameKind(cur, n)) {
      if (cur instanceof Element) morph(cur, /** @type {Element} */ (n));
      else if (cur.nodeValue !== n.nodeValue) cur.nodeValue = n.nodeValue;
    } else {
      live.insertBefore(n, cur);
    }
    i++;
  }
  while (live.childNodes.length > i) live.lastChild?.remove();
}

/**
 * @param {string} id
 * @returns {HTMLElement}
 */
export function byId(id) {
  const el = document.getElementById(id);
  if (!el) throw new Error(`no element #${id}`);
  return el;
}
