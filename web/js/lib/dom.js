// web/js/lib/dom.js — building elements without HTML strings.
//
// Every page builds its DOM with h(): data from the API goes in as text
// nodes, never as markup, so nothing a player typed as a name can become
// an element or a script.  The CSP (api/web.h) forbids inline styles in
// markup; h() sets classes and attributes, and a page that must place
// something (a bar's width) sets element.style from script, which the CSP
// allows.

// h("li.card.red", {title: "…", dataset: {seat: 2}, onclick: fn}, child, "text", [more])
// The tag may carry .classes and one #id.  Children are nodes, strings or
// numbers (as text), arrays of those, and null/undefined/false (skipped).
export function h(tag, attrs, ...children) {
  const [name, ...rest] = tag.split(/(?=[.#])/);
  const el = name === "svg" || SVG_TAGS.has(name)
    ? document.createElementNS(SVG_NS, name) : document.createElement(name || "div");
  for (const part of rest) {
    if (part[0] === ".") el.classList.add(part.slice(1));
    else el.id = part.slice(1);
  }
  if (attrs && (typeof attrs !== "object" || attrs instanceof Node || Array.isArray(attrs))) {
    children.unshift(attrs);
    attrs = null;
  }
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "dataset") Object.assign(el.dataset, v);
    else if (k === "class") for (const c of String(v).split(/\s+/).filter(Boolean)) el.classList.add(c);
    else if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v);
    else if (k in el && !(el instanceof SVGElement) && typeof v !== "string") el[k] = v;
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  append(el, children);
  return el;
}

const SVG_NS = "http://www.w3.org/2000/svg";
const SVG_TAGS = new Set(["svg", "g", "path", "circle", "rect", "polygon", "polyline", "ellipse", "line", "title",
  "desc", "text", "tspan", "defs", "pattern", "use"]);

function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.append(c instanceof Node ? c : String(c));
  }
}

// Replaces every child of el with children (same forms as h()).
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

export const $ = (sel, root = document) => root.querySelector(sel);
export const $$ = (sel, root = document) => [...root.querySelectorAll(sel)];

// Announces text to screen readers through the page's polite live region
// (#announce, present on every page), and keeps the last few visible to
// sighted viewers where the page shows them (#announcements).
// Nothing to say (an empty text) announces nothing.
export function announce(text) {
  if (!text) return;
  const live = document.getElementById("announce");
  if (live) live.textContent = text;
  const list = document.getElementById("announcements");
  if (list) {
    list.prepend(h("li", text));
    while (list.children.length > ANNOUNCEMENTS_KEPT) list.lastElementChild.remove();
  }
}

// How many past announcements stay on screen: a glance's worth.
const ANNOUNCEMENTS_KEPT = 6;
