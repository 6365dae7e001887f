// web/games/pitch-fleet/board.js — Pitch Fleet's board picture: the nine
// planet boards of the layout in play as a 3×3 matrix, each with its
// locations drawn from the view's geometry (docs/games/pitch-fleet-data.md,
// "Geometry": a board is 100 × 100 units, every location a circle x, y, r,
// a belt the ring around its planet), the starships where the view says
// they are, the record tokens and the 3 VP token on the goal, the start
// and the goal marked.  An inline SVG built with h() (createElementNS):
// every text is a text node.
//
// boardFigure(view, opts) → <figure>.  opts.pick: {onLocation(id),
// onShip(ship), selected: Set of location ids, marked: Map ship → word,
// target: the ship whose place a tap sets} makes locations and ships
// buttons (role="button", focusable, Enter or Space) for the referee's
// report.
import { h } from "../../js/lib/dom.js";

const UNIT = 100;               // a board's side, in board units
const GAP = 6;                  // between boards
const SIDE = 3 * UNIT + 2 * GAP;

// Planet colours (fill, with a dark text on them) — no colour is the only
// cue: every planet is named on the picture.
const PLANET_FILL = {
  mercury: "#b8b1a8", venus: "#e9c46a", earth: "#6fb3e0", mars: "#e07a5f", jupiter: "#d9a066",
  saturn: "#e6d3a3", uranus: "#9ee0e0", neptune: "#7c9cf0", pluto: "#c9b6e4",
};
const PLANET_TEXT = {
  mercury: "Mercury", venus: "Venus", earth: "Earth", mars: "Mars", jupiter: "Jupiter",
  saturn: "Saturn", uranus: "Uranus", neptune: "Neptune", pluto: "Pluto",
};
export const planetText = (p) => PLANET_TEXT[p] || String(p || "");

// Ships: red and blue (Okabe–Ito vermilion and blue), each with its
// number written on it.
const TEAM_FILL = { red: "#d55e00", blue: "#0072b2" };
export function shipText(ship) {
  const m = /^(red|blue)_(\d)$/.exec(ship || "");
  return m ? `${m[1] === "red" ? "Red" : "Blue"} ${m[2]}` : String(ship || "");
}
const shipShort = (ship) => { const m = /^(red|blue)_(\d)$/.exec(ship || ""); return m ? `${m[1][0].toUpperCase()}${m[2]}` : "?"; };
const shipTeam = (ship) => (String(ship).startsWith("red") ? "red" : "blue");

// Every location of the layout by id: {id, kind, stars, x, y, r, planet,
// board, row, col, n (its number among the board's of its kind), count}.
export function locations(view) {
  const all = new Map();
  for (const b of (view && view.layout) || []) {
    const counts = {};
    for (const l of b.locations) counts[l.kind] = (counts[l.kind] || 0) + 1;
    const seen = {};
    for (const l of b.locations) {
      seen[l.kind] = (seen[l.kind] || 0) + 1;
      all.set(l.id, { ...l, planet: b.planet, board: b.board, row: b.row, col: b.col, n: seen[l.kind], count: counts[l.kind] });
    }
  }
  return all;
}

// A location in words, as the rules page names them: "Venus's 2-star
// satellite", "Saturn's charging satellite (2)", "Mars's asteroid belt".
export function locationText(id, locs) {
  if (!id || id === "none") return "open space";
  const l = locs && locs.get(id);
  if (!l) return String(id).replace(/_/g, " ");
  const p = planetText(l.planet);
  const nth = l.count > 1 ? ` (${l.n})` : "";
  switch (l.kind) {
    case "planet": return p;
    case "vp_satellite": return `${p}'s ${l.stars}-star satellite${nth}`;
    case "charging_satellite": return `${p}'s charging satellite${nth}`;
    case "asteroid_belt": return `${p}'s asteroid belt`;
    default: return String(id);
  }
}

// A location's centre on the whole picture.
function centre(l) {
  return [l.col * (UNIT + GAP) + l.x, l.row * (UNIT + GAP) + l.y];
}

// Makes an SVG element a button: a tap, Enter or Space calls fn.
function tappable(el, label, pressed, fn) {
  el.setAttribute("role", "button");
  el.setAttribute("tabindex", "0");
  el.setAttribute("aria-label", label);
  if (pressed !== null) el.setAttribute("aria-pressed", String(pressed));
  el.classList.add("pf-tappable");
  el.addEventListener("click", (e) => { e.preventDefault(); fn(); });
  el.addEventListener("keydown", (e) => {
    if (e.key === "Enter" || e.key === " ") { e.preventDefault(); fn(); }
  });
  return el;
}

function star(cx, cy, s) {
  const pts = [];
  for (let i = 0; i < 10; i++) {
    const a = -Math.PI / 2 + i * Math.PI / 5, r = i % 2 ? s * 0.45 : s;
    pts.push(`${(cx + r * Math.cos(a)).toFixed(2)},${(cy + r * Math.sin(a)).toFixed(2)}`);
  }
  return h("polygon.pf-star", { points: pts.join(" ") });
}

// One location, drawn in board units (its board's <g> is translated).
function locationEl(l, planetR, locs, pick) {
  const label = locationText(l.id, locs);
  let g;
  if (l.kind === "asteroid_belt") {
    const inner = planetR + 4;
    const mid = (l.r + inner) / 2, width = l.r - inner;
    g = h("g.pf-loc.pf-belt", { dataset: { loc: l.id, kind: l.kind } },
      h("title", label),
      h("circle.pf-belt-ring", { cx: l.x, cy: l.y, r: mid, "stroke-width": width }),
      h("circle.pf-belt-rocks", { cx: l.x, cy: l.y, r: mid, "stroke-width": width * 0.5 }));
  } else if (l.kind === "planet") {
    g = h("g.pf-loc.pf-planet", { dataset: { loc: l.id, kind: l.kind } },
      h("title", label),
      h("circle.pf-planet-disc", { cx: l.x, cy: l.y, r: l.r, fill: PLANET_FILL[l.id] || "#ccc" }),
      h("text.pf-planet-name", { x: l.x, y: l.y + 1.6 }, planetText(l.id)));
  } else if (l.kind === "vp_satellite") {
    const stars = [];
    for (let i = 0; i < l.stars; i++) stars.push(star(l.x + (i - (l.stars - 1) / 2) * 3.6, l.y - 1, 1.8));
    g = h("g.pf-loc.pf-vp", { dataset: { loc: l.id, kind: l.kind, stars: l.stars } },
      h("title", label),
      h("circle.pf-sat", { cx: l.x, cy: l.y, r: l.r }),
      stars, h("text.pf-sat-text", { x: l.x, y: l.y + 4 }, `${l.stars} VP`));
  } else {
    g = h("g.pf-loc.pf-charge", { dataset: { loc: l.id, kind: l.kind } },
      h("title", label),
      h("circle.pf-sat", { cx: l.x, cy: l.y, r: l.r }),
      h("path.pf-bolt", { d: `M${l.x + 0.8} ${l.y - 4.5} L${l.x - 2.4} ${l.y + 0.6} L${l.x} ${l.y + 0.6} L${l.x - 0.8} ${l.y + 4.5} L${l.x + 2.4} ${l.y - 0.6} L${l.x} ${l.y - 0.6} Z` }));
  }
  if (pick) {
    const on = pick.selected && pick.selected.has(l.id);
    if (on) g.classList.add("is-selected");
    tappable(g, label, !!on, () => pick.onLocation(l.id));
  }
  return g;
}

function boardEl(b, view, locs, pick) {
  const start = b.planet === view.start_planet, goal = b.planet === view.goal_planet;
  const planet = b.locations.find((l) => l.kind === "planet");
  const pr = planet ? planet.r : 10;
  const dx = b.col * (UNIT + GAP), dy = b.row * (UNIT + GAP);
  // belts first (under their planet), then the planet, then satellites
  const order = [...b.locations].sort((a, c) => rank(a.kind) - rank(c.kind));
  const marks = [];
  if (start) marks.push(h("text.pf-mark.pf-mark-start", { x: 3, y: 8 }, "START"));
  if (goal) marks.push(h("text.pf-mark.pf-mark-goal", { x: 3, y: 8 }, "GOAL"));
  if (goal && view.bonus_token) {
    marks.push(h("g.pf-bonus", { "aria-label": "the 3 VP token on the goal" },
      h("circle", { cx: 90, cy: 10, r: 7 }), h("text", { x: 90, y: 12 }, "3 VP")));
  }
  if (goal) {
    const on = (view.records || []).filter((r) => r.on_goal);
    on.forEach((r, i) => marks.push(h("g.pf-record", { dataset: { ship: r.ship, team: shipTeam(r.ship) } },
      h("rect", { x: 3 + i * 9, y: 90, width: 8, height: 7, rx: 1.5, fill: TEAM_FILL[shipTeam(r.ship)] }),
      h("text", { x: 7 + i * 9, y: 95.4 }, shipShort(r.ship)))));
  }
  return h("g.pf-board", {
    transform: `translate(${dx} ${dy})`,
    dataset: { planet: b.planet, board: b.board, start: String(start), goal: String(goal) },
  },
  h("rect.pf-board-bg", { x: 0, y: 0, width: UNIT, height: UNIT, rx: 3 }),
  order.map((l) => locationEl(l, pr, locs, pick)),
  marks);
}

function rank(kind) {
  return { asteroid_belt: 0, planet: 1, vp_satellite: 2, charging_satellite: 2 }[kind] ?? 3;
}

// The ships on the board, at the centre of the locations each touches;
// ships at the same spot side by side.  A ship on the board in open space
// (no location) has no place on the picture: it is listed under it.
function shipsEl(view, locs, pick) {
  const placed = new Map();
  const out = [];
  for (const s of view.ships || []) {
    if (!s.on_board || !(s.at || []).length) continue;
    const pts = s.at.map((id) => locs.get(id)).filter(Boolean).map(centre);
    if (!pts.length) continue;
    const x = pts.reduce((a, p) => a + p[0], 0) / pts.length, y = pts.reduce((a, p) => a + p[1], 0) / pts.length;
    const key = `${Math.round(x)}:${Math.round(y)}`;
    const k = placed.get(key) || 0;
    placed.set(key, k + 1);
    out.push(shipEl(s, x + k * 10 - 3, y - 8 + k * 2, locs, pick));
  }
  return out;
}

function shipEl(s, x, y, locs, pick) {
  const mark = pick && pick.marked ? pick.marked.get(s.ship) : null;
  const where = (s.at || []).map((id) => locationText(id, locs)).join(" and ") || "open space";
  const label = `${shipText(s.ship)}, at ${where}${mark ? ` (${mark})` : ""}`;
  const g = h("g.pf-ship", { dataset: { ship: s.ship, team: s.team || shipTeam(s.ship) }, transform: `translate(${x.toFixed(1)} ${y.toFixed(1)}) scale(1.4)` },
    h("title", label),
    h("path.pf-ship-hull", { d: "M0 -5 L4.5 4 L0 2.5 L-4.5 4 Z", fill: TEAM_FILL[s.team || shipTeam(s.ship)] }),
    h("text.pf-ship-name", { x: 0, y: 9.5 }, shipShort(s.ship)));
  if (mark) g.classList.add("is-marked");
  if (pick && pick.target === s.ship) g.classList.add("is-target");
  if (pick && pick.onShip) tappable(g, label, null, () => pick.onShip(s.ship));
  return g;
}

// The figure: the picture, and under it in words what the picture shows
// (its text alternative): the start and the goal, the tokens, every ship.
export function boardFigure(view, opts = {}) {
  const locs = locations(view);
  const pick = opts.pick || null;
  const svg = h("svg.pf-svg", { viewBox: `-2 -2 ${SIDE + 4} ${SIDE + 4}`, role: pick ? "group" : "img",
    "aria-label": `The boards in play: from ${planetText(view.start_planet)} to ${planetText(view.goal_planet)}` },
  h("title", `The boards in play: from ${planetText(view.start_planet)} to ${planetText(view.goal_planet)}`),
  (view.layout || []).map((b) => boardEl(b, view, locs, pick)),
  shipsEl(view, locs, pick));
  const ships = view.ships || [];
  const open = ships.filter((s) => s.on_board && !(s.at || []).length);
  const off = ships.filter((s) => !s.on_board);
  const shipButton = (s) => (pick && pick.onShip
    ? h("button.pf-ship-chip", { type: "button", dataset: { ship: s.ship, team: s.team }, onclick: () => pick.onShip(s.ship) }, shipText(s.ship))
    : h("span.pf-ship-chip", { dataset: { ship: s.ship, team: s.team } }, shipText(s.ship)));
  return h(`figure.pf-board-figure${opts.size ? `.pf-${opts.size}` : ""}`,
    svg,
    h("figcaption",
      view.mode !== "solo" && h("p.pf-route", "From ", h("strong", planetText(view.start_planet)), " (start) to ",
        h("strong", planetText(view.goal_planet)), " (goal)",
        view.bonus_token ? "; the 3 VP token is on the goal" : "; the 3 VP token is gone",
        `; beams on the board: ${view.beams_on_board ?? 0}.`),
      open.length ? h("p.pf-open", "In open space on the board: ", open.map(shipButton)) : null,
      off.length && view.mode !== "solo" ? h("p.pf-off", "Off the board: ", off.map(shipButton)) : null));
}
