// web/js/tournament/bracket.js — an elimination stage drawn as a bracket,
// from GET /v1/tournaments/{id}/bracket (docs/formats/brackets.md).
//
// Rounds are columns, each match a box with its two sides, and lines join
// a match to the one its winner goes on to.  A double elimination has the
// winners bracket on top, the losers bracket under it, and the grand final
// (and its reset) in the columns to their right, fed by both finals; a
// single elimination's third-place match sits under its final.  Within a
// part, the i-th of n matches of a round is centred at (i + ½)/n of the
// part's height, so every match sits halfway between the two it is fed by
// (the graph numbers them that way: round r + 1's match i takes the
// winners of round r's 2i and 2i + 1, or in the losers bracket's even
// rounds round r's match i).  Sides that come from a loser (the drops into
// the losers bracket, the third-place match) have no line: they say
// "Loser of W2-1" until they are known.
//
// The layout is computed here, in rem, and placed with element.style (the
// CSP allows style set from script, not style in markup); the boxes are
// text (names, seeds, marks), so the bracket reads without the lines, and
// with a screen reader part by part and round by round (each a group with
// its heading).  Colour is never the only cue: a winner has a ✓ and bold
// type, a bye and a match not needed say so.
import { h } from "../lib/dom.js";
import { ordinal } from "../lib/format.js";

// Sizes in rem; LABEL_H and SLOT_H are .bk-head's and .bk-slot's heights
// in css/tournament.css, BOX_H their sum with the borders.
const BOX_W = 14;
const LABEL_H = 1.5;
const SLOT_H = 1.9;
const BOX_H = LABEL_H + 2 * SLOT_H + 0.2;
const COL_GAP = 3;
const ROW_GAP = 0.9;
const HEAD_H = 2;         // a round's title above its column
const PART_H = 2.2;       // a part's title (double elimination)
const PART_GAP = 1.2;

const STATUS = {
  waiting: "Waiting", ready: "Ready", done: "Done", bye: "Bye", void: "No match", not_needed: "Not needed",
};

// drawBracket(bracket, {stageMatches, tableName}): the bracket's element.
// stageMatches maps a stage match id to its StageMatch (its state: called,
// and the live match playing it), tableName a venue table id to its name.
export function drawBracket(bracket, { stageMatches = new Map(), tableName = (id) => String(id) } = {}) {
  const byId = new Map(bracket.matches.map((m) => [m.id, m]));
  const double = bracket.format === "double_elimination";
  const parts = {};
  for (const m of bracket.matches) (parts[m.part] ||= []).push(m);
  const winners = roundsOf(parts.winners);
  const losers = roundsOf(parts.losers);

  const columns = [];        // {part, round, title, x, top, boxes: [{m, y}]}
  const pos = new Map();     // match id → {x, top}
  const colX = (c) => c * (BOX_W + COL_GAP);
  const place = (col, m, top) => {
    col.boxes.push({ m, y: top - col.top });
    pos.set(m.id, { x: col.x, top });
  };

  // a part's rounds as columns from column 0, from y0 down; its bottom
  const layPart = (rounds, part, y0, title) => {
    const most = Math.max(...[...rounds.values()].map((r) => r.length));
    const height = most * (BOX_H + ROW_GAP);
    const last = Math.max(...rounds.keys());
    [...rounds.keys()].sort((a, b) => a - b).forEach((r, c) => {
      const col = { part, round: r, title: title(r, last), x: colX(c), top: y0, boxes: [] };
      rounds.get(r).forEach((m, i, all) => place(col, m, y0 + HEAD_H + ((i + 0.5) * height) / all.length - BOX_H / 2));
      columns.push(col);
    });
    return y0 + HEAD_H + height;
  };

  const partTitles = [];
  let y = 0;
  if (double) {
    partTitles.push({ text: "Winners bracket", y });
    y += PART_H;
  }
  let bottom = winners.size ? layPart(winners, "winners", y, double ? winnersTitleDouble : winnersTitle) : y;
  if (losers.size) {
    const ly = bottom + PART_GAP;
    partTitles.push({ text: "Losers bracket", y: ly });
    bottom = layPart(losers, "losers", ly + PART_H, losersTitle);
  }

  // the grand final and its reset: right of both brackets, between their finals
  const finalsCol = Math.max(winners.size, losers.size);
  const lastOf = (rounds) => (rounds.size ? rounds.get(Math.max(...rounds.keys())).at(-1) : null);
  const wf = lastOf(winners);
  const lf = lastOf(losers);
  const centre = (m) => pos.get(m.id).top + BOX_H / 2;
  const gfY = wf && lf ? (centre(wf) + centre(lf)) / 2 : wf ? centre(wf) : 0;
  (parts.grand_final || []).forEach((m) => {
    const col = { part: m.part, round: m.round, title: "Grand final", x: colX(finalsCol), top: gfY - BOX_H / 2 - HEAD_H, boxes: [] };
    place(col, m, gfY - BOX_H / 2);
    columns.push(col);
  });
  (parts.grand_final_reset || []).forEach((m) => {
    const col = { part: m.part, round: m.round, title: "Grand final reset", x: colX(finalsCol + 1), top: gfY - BOX_H / 2 - HEAD_H, boxes: [] };
    place(col, m, gfY - BOX_H / 2);
    columns.push(col);
  });
  // single elimination: the third-place match under the final
  (parts.third_place || []).forEach((m) => {
    const top = bottom + PART_GAP;
    const col = { part: m.part, round: m.round, title: "Third place", x: wf ? pos.get(wf.id).x : 0, top, boxes: [] };
    place(col, m, top + HEAD_H);
    columns.push(col);
    bottom = top + HEAD_H + BOX_H;
  });

  const width = Math.max(...columns.map((c) => c.x)) + BOX_W;
  const height = Math.max(bottom, ...columns.map((c) => c.top + HEAD_H + BOX_H)) + ROW_GAP;

  const lines = connectors(bracket.matches, byId, pos);
  const svg = h("svg.bk-lines", { viewBox: `0 0 ${width} ${height}`, "aria-hidden": "true", focusable: "false" }, lines);
  setBox(svg, 0, 0, width, height);
  const canvas = h("div.bk-canvas", svg,
    partTitles.map((p) => setBox(h("h3.bk-part-title", p.text), 0, p.y, width, PART_H)),
    columns.map((col) => {
      const titleId = `bk-round-${col.part}-${col.round}`;
      const el = h("section.bk-round", { dataset: { part: col.part, round: col.round }, "aria-labelledby": titleId },
        h("h4.bk-round-title", { id: titleId }, col.title),
        col.boxes.map(({ m, y: top }) => setBox(matchBox(m, byId, stageMatches, tableName), 0, top, BOX_W, BOX_H)));
      return setBox(el, col.x, col.top, BOX_W, Math.max(...col.boxes.map((b) => b.y)) + BOX_H);
    }));
  setBox(canvas, null, null, width, height);
  return h("div.bracket", { dataset: { format: bracket.format, size: bracket.size } },
    h("div.bk-scroll", { tabindex: "0", role: "region", "aria-label": `The bracket, ${bracket.size} places: scroll sideways to see all of it` }, canvas),
    placements(bracket.placements || []));
}

// part's matches → Map round → matches in graph order (id)
function roundsOf(matches = []) {
  const rounds = new Map();
  for (const m of [...matches].sort((a, b) => a.id - b.id)) {
    if (!rounds.has(m.round)) rounds.set(m.round, []);
    rounds.get(m.round).push(m);
  }
  return rounds;
}

function winnersTitle(r, last) {
  if (r === last) return "Final";
  if (r === last - 1) return "Semi-finals";
  if (r === last - 2) return "Quarter-finals";
  return `Round ${r}`;
}

function winnersTitleDouble(r, last) {
  if (r === last) return "Winners final";
  if (r === last - 1) return "Winners semi-finals";
  return `Winners round ${r}`;
}

function losersTitle(r, last) {
  return r === last ? "Losers final" : `Losers round ${r}`;
}

function setBox(el, x, y, w, hgt) {
  if (x !== null) el.style.left = `${x}rem`;
  if (y !== null) el.style.top = `${y}rem`;
  el.style.width = `${w}rem`;
  el.style.height = `${hgt}rem`;
  return el;
}

// One line per side that a winner fills: from the right edge of the match
// it comes from to that side's row, across the gap between the columns.
// The reset of a grand final names the same two sources as the grand
// final; its line comes from the grand final instead.
function connectors(matches, byId, pos) {
  const out = [];
  const decided = (m) => Boolean(m && m.winner);
  for (const m of matches) {
    const to = pos.get(m.id);
    if (!to) continue;
    if (m.part === "grand_final_reset") {
      const gf = matches.find((x) => x.part === "grand_final");
      const from = gf && pos.get(gf.id);
      if (from) out.push(line(from, to, to.top + BOX_H / 2, decided(gf)));
      continue;
    }
    m.slots.forEach((slot, k) => {
      if (slot.source.from !== "winner") return;
      const from = pos.get(slot.source.ref);
      if (from) out.push(line(from, to, to.top + LABEL_H + (k + 0.5) * SLOT_H, decided(byId.get(slot.source.ref))));
    });
  }
  return out;
}

function line(from, to, y1, done) {
  const x0 = from.x + BOX_W;
  const y0 = from.top + BOX_H / 2;
  const mid = to.x - COL_GAP / 2;
  const r = (v) => Math.round(v * 1000) / 1000;
  return h("path", { d: `M${r(x0)} ${r(y0)}H${r(mid)}V${r(y1)}H${r(to.x)}`, class: done ? "decided" : null });
}

function matchBox(m, byId, stageMatches, tableName) {
  const sm = m.stored_match ? stageMatches.get(m.stored_match) : null;
  let status = STATUS[m.status] || m.status;
  if (m.walkover) status = "Walkover";
  if (m.part === "grand_final_reset" && m.status === "waiting") status = "If needed";
  let where = null;
  if (sm && sm.state === "called") {
    status = "Playing";
    const table = sm.table ? `table ${tableName(sm.table)}` : "live";
    where = sm.match ? h("a", { href: `table?match=${sm.match}` }, table) : table;
  }
  const state = sm && sm.state === "called" ? "called" : m.status;
  return h(`div.bk-match.is-${state}`, {
    role: "group", "aria-label": `${m.label}: ${status}`,
    dataset: { id: m.id, label: m.label, part: m.part, round: m.round, status: m.status, stageMatch: m.stored_match ?? "" },
  },
  h("div.bk-head", h("span.bk-label", m.label), h("span.bk-status", status, where ? [" · ", where] : null)),
  m.slots.map((slot, k) => slotRow(m, slot, k, byId)));
}

function slotRow(m, slot, k, byId) {
  const e = slot.entrant;
  const src = slot.source;
  const won = Boolean(e && m.winner && m.winner.player === e.player);
  const lost = Boolean(e && m.winner && !won);
  const seed = src.from === "seed" ? h("span.bk-seed", { title: `seed ${src.ref}` }, String(src.ref)) : h("span.bk-seed");
  let name;
  if (e) name = h("span.bk-name", e.name);
  else if (src.from === "empty" || (src.from !== "winner" && ["bye", "void"].includes(m.status))) name = h("span.bk-name.bk-placeholder", "Bye");
  else if (["void", "not_needed"].includes(m.status)) name = h("span.bk-name.bk-placeholder", "—");
  else {
    const from = byId.get(src.ref);
    name = h("span.bk-name.bk-placeholder", `${src.from === "winner" ? "Winner" : "Loser"} of ${from ? from.label : `match ${src.ref}`}`);
  }
  return h(`div.bk-slot${won ? ".won" : ""}${lost ? ".lost" : ""}`, { dataset: { slot: k, player: e ? e.player : "" } },
    seed, name,
    won ? h("span.bk-mark", h("span", { "aria-hidden": "true" }, "✓"), h("span.visually-hidden", m.status === "bye" ? " goes through" : " won")) : null);
}

function placements(list) {
  if (!list.length) return null;
  const sorted = [...list].sort((a, b) => a.place - b.place || a.entrant.name.localeCompare(b.entrant.name));
  return h("div.bk-placements",
    h("h3", "Placings so far"),
    h("ol.plain.bk-placings", sorted.map((p) => h("li", { dataset: { place: p.place, player: p.entrant.player } },
      h("strong", ordinal(p.place)), " ", p.entrant.name))));
}
