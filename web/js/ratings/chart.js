// web/js/ratings/chart.js — a line chart in SVG, for a rating's history:
// one point per rated match, in order, joined by a line, with a y axis of
// round values and an x axis of match numbers, each with its title.
//
// The chart is an image with a name and a description (role="img",
// <title> and <desc>: the range, the first and the latest value, the
// highest and the lowest); each point has its own <title> (a tooltip).
// The page shows the same data as a table next to it: the text
// alternative for anyone who cannot read the picture.  No library: the
// scale is computed here, the drawing is a viewBox that scales with the
// page.
import { h } from "../lib/dom.js";

const W = 900;
const H = 360;
const M = { left: 78, right: 24, top: 20, bottom: 62 };
const X_TICKS_MAX = 12;
const Y_TICKS = 5;

let charts = 0;

// lineChart(points, opts): points [{y, label}] in order (x is the position,
// 1..n); opts.title (the chart's name), opts.yTitle, opts.xTitle,
// opts.format(y) (a value as text), opts.tick(y) (an axis value as text),
// opts.summary (the description).
export function lineChart(points, opts) {
  const n = points.length;
  const id = `chart-${++charts}`;
  const fmt = opts.format || String;
  const tick = opts.tick || fmt;
  const ys = points.map((p) => p.y);
  let lo = Math.min(...ys);
  let hi = Math.max(...ys);
  if (lo === hi) {
    lo -= 1;
    hi += 1;
  }
  const ticks = niceTicks(lo, hi, Y_TICKS);
  lo = Math.min(lo, ticks[0]);
  hi = Math.max(hi, ticks[ticks.length - 1]);
  const pw = W - M.left - M.right;
  const ph = H - M.top - M.bottom;
  const x = (i) => M.left + (n === 1 ? pw / 2 : (i * pw) / (n - 1));
  const y = (v) => M.top + ph - ((v - lo) / (hi - lo)) * ph;
  const r = (v) => Math.round(v * 10) / 10;

  const step = Math.max(1, Math.ceil(n / X_TICKS_MAX));
  const xTicks = points.map((_, i) => i).filter((i) => i % step === 0 || i === n - 1);

  return h("svg.chart", {
    viewBox: `0 0 ${W} ${H}`, role: "img", "aria-labelledby": `${id}-title ${id}-desc`, dataset: { points: n },
  },
  h("title", { id: `${id}-title` }, opts.title),
  h("desc", { id: `${id}-desc` }, opts.summary),
  h("g.y-axis", ticks.map((v) => h("g",
    h("line.grid", { x1: M.left, x2: W - M.right, y1: r(y(v)), y2: r(y(v)) }),
    h("text", { x: M.left - 10, y: r(y(v)) + 5, "text-anchor": "end" }, tick(v)))),
  h("line.axis", { x1: M.left, x2: M.left, y1: M.top, y2: M.top + ph })),
  h("g.x-axis",
    h("line.axis", { x1: M.left, x2: W - M.right, y1: M.top + ph, y2: M.top + ph }),
    xTicks.map((i) => h("g",
      h("line.tick", { x1: r(x(i)), x2: r(x(i)), y1: M.top + ph, y2: M.top + ph + 6 }),
      h("text", { x: r(x(i)), y: M.top + ph + 24, "text-anchor": "middle" }, String(i + 1))))),
  h("text.axis-title", { x: M.left + pw / 2, y: H - 10, "text-anchor": "middle" }, opts.xTitle),
  h("text.axis-title", { x: 18, y: M.top + ph / 2, "text-anchor": "middle", transform: `rotate(-90 18 ${M.top + ph / 2})` }, opts.yTitle),
  n > 1 ? h("polyline.series", { points: points.map((p, i) => `${r(x(i))},${r(y(p.y))}`).join(" ") }) : null,
  h("g.points", points.map((p, i) => h(`circle.point${i === n - 1 ? ".last" : ""}`, {
    cx: r(x(i)), cy: r(y(p.y)), r: 6, dataset: { index: i + 1, value: p.y },
  }, h("title", `${p.label}: ${fmt(p.y)}`)))));
}

// About `count` round values spanning [lo, hi]: steps of 1, 2 or 5 × 10^k.
export function niceTicks(lo, hi, count) {
  const raw = (hi - lo) / Math.max(1, count - 1);
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) || 10 * mag;
  const first = Math.floor(lo / step) * step;
  const out = [];
  for (let v = first; v <= hi + step * 1e-9; v += step) out.push(Number(v.toFixed(10)));
  if (out[out.length - 1] < hi) out.push(Number((out[out.length - 1] + step).toFixed(10)));
  return out;
}
