// web/js/lib/games.js — what a page knows of a game: its description from
// GET /v1/games/{name} and its web module (web/games/index.js), with the
// generic renderer standing in for every part a module leaves out.
import * as api from "./api.js";
import { list, lowerWords, playerName, seatName, seconds } from "./format.js";
import { announce } from "./dom.js";
import { modules } from "../../games/index.js";
import * as generic from "../../games/generic.js";

// Events that are on a match's stream but in no game's table: an abort
// (api/match_events.c), and the public view of another venue's match
// (api/league.c).
export const RUNTIME_EVENTS = ["match_aborted", "match_view"];

const infos = new Map();
const loaded = new Map();

// The game's description, fetched once per page.
export function gameInfo(name) {
  if (!infos.has(name)) {
    const p = api.get(`/v1/games/${encodeURIComponent(name)}`);
    p.catch(() => infos.delete(name));          // fetch again next time
    infos.set(name, p);
  }
  return infos.get(name);
}

// {info, module}: the module's parts, each falling back to generic's.
export function loadGame(name) {
  if (!loaded.has(name)) {
    const p = (async () => {
      const info = await gameInfo(name);
      const own = modules[name] ? await modules[name]() : {};
      if (own.stylesheet) addStylesheet(own.stylesheet);
      return { info, module: { ...generic, ...own }, generic: !modules[name] };
    })();
    p.catch(() => loaded.delete(name));
    loaded.set(name, p);
  }
  return loaded.get(name);
}

function addStylesheet(href) {
  if ([...document.styleSheets].some((s) => s.href === href)) return;
  const link = document.createElement("link");
  link.rel = "stylesheet";
  link.href = href;
  document.head.append(link);
}

// Every event name of one game, or of every game (for a stream of many
// matches), with the runtime's.
export function eventNames(info) {
  return [...info.events.map((e) => e.name), ...RUNTIME_EVENTS];
}

export async function allEventNames() {
  const games = await api.get("/v1/games");
  const names = new Set(RUNTIME_EVENTS);
  for (const g of games.items) for (const e of g.events || []) names.add(e.name);
  return [...names];
}

// One sentence for an event, from the game's own text ("{seat} calls
// {call}: {verdict}.") with each {field} put in as words: seats by their
// players' names, a card by cardText, a call by its name, times ending in
// _us in seconds, enums in words.
export function describeEvent(info, match, ev, cardText = generic.cardText) {
  if (ev.kind === "match_aborted") return "The match is aborted.";
  if (ev.kind === "match_view") return "";      // another venue's match moved on: its view says how
  const def = info.events.find((e) => e.name === ev.kind);
  if (!def || !def.text) return lowerWords(ev.kind);
  const fields = new Map(def.fields.map((f) => [f.name, f]));
  return def.text.replace(/\{(\w+)\}/g, (_, name) => {
    if (name === "seat") return seatName(match, ev.seat);
    const f = fields.get(name);
    const v = ev[name];
    if (!f || v === undefined) return `{${name}}`;
    return valueText(info, match, f, v, ev, cardText);
  });
}

function valueText(info, match, f, v, ev, cardText) {
  if (v === null) return f.type === "seat" ? "nobody" : "none";
  if (Array.isArray(v)) {
    if (f.type === "seats" || f.type === "seat") return list(v.map((s) => seatName(match, s)));
    return list(v.map((x) => valueText(info, match, { ...f, max_count: 0 }, x, {}, cardText)));
  }
  switch (f.type) {
    case "seat": return seatName(match, v);
    case "card": return cardText(v);
    case "call": return ev[`${f.name}_name`] || callName(info, v);
    case "enum": return lowerWords(v);
    case "places": return "the placements";
    default: return f.name.endsWith("_us") ? seconds(v) : String(v);
  }
}

export function callName(info, call) {
  const c = (info.calls || []).find((x) => x.call === call);
  return c ? c.name : `call ${call}`;
}

// What a page gives a module's renderer (docs/web.md, "The context"):
// the game, who is looking, names for seats and cards, and the page's
// announcer.  getMatch() is the match resource as last fetched (names,
// state, result); it may be null at first.
export function makeContext(game, { audience = "public", seat = null, getMatch = () => null } = {}) {
  const cardText = game.module.cardText;
  const ctx = {
    info: game.info,
    audience,
    seat,
    match: getMatch,
    playerName: (s) => playerName(getMatch(), s),
    seatName: (s) => seatName(getMatch(), s),
    cardText,
    // A module's describe(ev, ctx) may word some events itself and return
    // null for the rest, which the game's own texts word.
    describe: (ev) => (game.module.describe && game.module.describe(ev, ctx)) ||
      describeEvent(game.info, getMatch(), ev, cardText),
    announce,
  };
  return ctx;
}
