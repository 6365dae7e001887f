"""tests/web/checks.py — accessibility checks, run inside the page.

LABELS_JS lists every visible control without an accessible name (a
<label>, aria-label, aria-labelledby, or a button's text), every role=img
without a name, and a missing <main>, <h1> or polite live region.

CONTRAST_JS computes, for every visible element with text of its own, the
WCAG 2.x contrast ratio of its computed colour against the first opaque
background behind it, and lists those below the given ratio.  Every
checked element is marked data-checked-contrast, so that the test can tell
it checked a real page.
"""

LABELS_JS = r"""
const out = [];
const visible = (e) => e.offsetParent !== null || getComputedStyle(e).position === 'fixed';
const named = (e) => (e.getAttribute('aria-label') || '').trim() ||
  (e.getAttribute('aria-labelledby') || '').split(/\s+/).filter(Boolean)
    .map((id) => (document.getElementById(id) || {}).textContent || '').join('').trim() ||
  [...(e.labels || [])].map((l) => l.textContent).join('').trim() ||
  ((e.tagName === 'BUTTON' || e.tagName === 'A') && e.textContent.trim());
for (const e of document.querySelectorAll('input, select, textarea, button')) {
  if (e.type === 'hidden' || !visible(e)) continue;
  if (!named(e)) out.push(`${e.tagName.toLowerCase()}${e.name ? ' ' + e.name : ''}${e.id ? ' #' + e.id : ''} has no accessible name`);
}
for (const e of document.querySelectorAll('[role=img]'))
  if (!named(e)) out.push(`an image (${e.className}) has no accessible name`);
if (document.querySelectorAll('main').length !== 1) out.push('not exactly one <main>');
if (!document.querySelector('h1')) out.push('no <h1>');
if (!document.querySelector('[aria-live=polite]')) out.push('no polite live region');
return out;
"""

CONTRAST_JS = r"""
const min = arguments[0];
const parse = (c) => { const m = c.match(/[\d.]+/g).map(Number); return { r: m[0], g: m[1], b: m[2], a: m.length > 3 ? m[3] : 1 }; };
const lum = ({ r, g, b }) => {
  const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
  return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
};
const background = (e) => {
  for (let x = e; x; x = x.parentElement) {
    const c = parse(getComputedStyle(x).backgroundColor);
    if (c.a >= 1) return c;
  }
  return parse(getComputedStyle(document.documentElement).backgroundColor);
};
const out = [];
for (const e of document.querySelectorAll('body *')) {
  if (e.offsetParent === null || ['SCRIPT', 'STYLE', 'svg'].includes(e.tagName)) continue;
  const own = [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
  if (!own) continue;
  const fg = parse(getComputedStyle(e).color), bg = background(e);
  const [l1, l2] = [lum(fg), lum(bg)].sort((a, b) => b - a);
  const ratio = (l1 + 0.05) / (l2 + 0.05);
  e.dataset.checkedContrast = ratio.toFixed(2);
  if (ratio < min) out.push(`${ratio.toFixed(2)}:1 ${e.tagName.toLowerCase()}.${e.className} "${e.textContent.trim().slice(0, 40)}"`);
}
return out;
"""
