// web/games/generic.js — the generic renderer: any game's view, drawn from
// the view alone.
//
// It is every part of a game module (docs/web.md, "Game modules") for a
// game that has none, and the part a module leaves out for one that has.
// It knows only the framework's conventions (docs/matches.md): a member
// named seat, winner or ending in _seat holds a seat, seats, tiebreak and
// names ending in _seats hold lists of seats; times end in _us; a card is
// an object with a handle; a list of objects that each have a seat is one
// row per seat.  So a new game shows as soon as it is registered, in words
// and tables rather than its own look.
import { h, fill } from "../js/lib/dom.js";
import { playerName, seconds, words } from "../js/lib/format.js";

// Members every view has that say nothing to a viewer.
const SKIP = new Set(["game", "audience"]);

// Words for a card: its face's fields without the handle.  A face of one
// string ({"word": "ember"}) is that string.
export function cardText(card) {
  if (!card || typeof card !== "object") return "no card";
  const face = Object.entries(card).filter(([k]) => k !== "handle" && k !== "source" && k !== "seat");
  if (face.length === 1 && typeof face[0][1] === "string") return face[0][1];
  if (face.length === 0) return `card ${card.handle}`;
  return face.map(([k, v]) => `${words(k).toLowerCase()} ${v}`).join(", ");
}

export function isCard(v) {
  return v !== null && typeof v === "object" && !Array.isArray(v) && typeof v.handle === "string";
}

const isSeatKey = (k) => k === "seat" || k === "winner" || k.endsWith("_seat");
const isSeatsKey = (k) => k === "seats" || k === "tiebreak" || k.endsWith("_seats");
const isSeatRows = (v) => Array.isArray(v) && v.length > 0 &&
  v.every((x) => x && typeof x === "object" && !Array.isArray(x) && "seat" in x);

// A value as text, for a cell or a definition.
export function valueText(key, v, ctx) {
  if (v === null || v === undefined) return "—";
  if (typeof v === "boolean") return v ? "yes" : "no";
  if (typeof v === "number") {
    if (isSeatKey(key)) return ctx.playerName(v);
    if (key.endsWith("_us")) return seconds(v);
    return String(v);
  }
  if (typeof v === "string") return v.replace(/_/g, " ");
  if (isCard(v)) return cardText(v);
  if (Array.isArray(v)) {
    if (isSeatsKey(key)) return v.map((s) => ctx.playerName(s)).join(", ") || "—";
    return v.map((x) => valueText("", x, ctx)).join(", ") || "—";
  }
  return Object.entries(v).map(([k, x]) => `${words(k)}: ${valueText(k, x, ctx)}`).join("; ");
}

function cardEl(card) {
  const text = cardText(card);
  return h("span.generic-card", { role: "img", "aria-label": `card: ${text}` }, text);
}

// One row per seat: the player, then each member.
function seatTable(caption, rows, ctx) {
  const keys = [...new Set(rows.flatMap((r) => Object.keys(r)))].filter((k) => k !== "seat");
  return h("table.seat-table", h("caption", words(caption)),
    h("thead", h("tr", h("th", { scope: "col" }, "Player"), keys.map((k) => h("th", { scope: "col" }, words(k))))),
    h("tbody", rows.map((r) => h("tr", { dataset: { seat: r.seat } },
      h("th", { scope: "row" }, ctx.playerName(r.seat)),
      keys.map((k) => h("td", isCard(r[k]) ? cardEl(r[k]) : valueText(k, r[k], ctx)))))));
}

// A view as a page section: its seat tables, its cards, then the rest as a
// list of definitions.  compact: a scoreboard tile (seat tables and cards).
export function viewElement(view, ctx, { compact = false } = {}) {
  const tables = [];
  const cards = [];
  const defs = [];
  let you = null;
  for (const [k, v] of Object.entries(view || {})) {
    if (SKIP.has(k)) continue;
    if (k === "you" && v && typeof v === "object") you = v;
    else if (isSeatRows(v)) tables.push(seatTable(k, v, ctx));
    else if (isCard(v)) cards.push(h("div.generic-card-slot", h("span.label", words(k)), cardEl(v)));
    else if (!compact) defs.push(h("dt", words(k)), h("dd", { dataset: { member: k } }, valueText(k, v, ctx)));
  }
  return h("div.generic-view",
    you && h("section.you", { "aria-label": "You" }, h("h3", "You"),
      h("dl", Object.entries(you).map(([k, v]) => [h("dt", words(k)), h("dd", { dataset: { member: k } }, valueText(k, v, ctx))]))),
    cards, tables, defs.length ? h("dl.members", defs) : null);
}

// The result of a finished match (GET /v1/matches/{id} result).
export function resultElement(match, ctx) {
  const r = match && match.result;
  if (!r || !r.placements) return null;
  return h("table.result-table", h("caption", r.finished ? "Result" : "Standing so far"),
    h("thead", h("tr", ["Place", "Player", "Score"].map((c) => h("th", { scope: "col" }, c)))),
    h("tbody", r.placements.map((p) => h("tr", { dataset: { seat: p.seat } },
      h("td", String(p.place)), h("th", { scope: "row" }, ctx.playerName(p.seat)),
      h("td", p.score ? String(p.score.total) : "—")))));
}

function renderer(root, ctx, compact) {
  return {
    update(view, match) {
      fill(root, viewElement(view, ctx, { compact }),
        match && match.state && ["provisional", "finished", "aborted"].includes(match.state)
          ? resultElement(match, ctx) : null);
    },
  };
}

// The parts of a game module (docs/web.md).
export const table = (root, ctx) => renderer(root, ctx, false);
export const station = (root, ctx) => renderer(root, ctx, false);
export const tile = (root, ctx) => renderer(root, ctx, true);
