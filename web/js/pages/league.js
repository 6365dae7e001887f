// web/js/pages/league.js — the league scoreboard: every venue of the
// league, its tables and the match live at each, and the latest results,
// from any venue's arbiterd.
//
// A venue's daemon runs only its own tables; the others' reach it through
// the league database (docs/architecture.md, "Several venues"): their
// table events (`match_created`, `match_ended`) and their matches' public
// views (`match_view`) come on this daemon's streams like its own, so the
// page keeps every tile live with the same three streams as the venue
// scoreboard: topic "table", "match" and "tournament".
// ?obs=1 makes it an OBS browser source (transparent, no chrome).
import * as api from "../lib/api.js";
import { useToken } from "../lib/auth.js";
import { $, fill, h } from "../lib/dom.js";
import { ordinal, playerName } from "../lib/format.js";
import { allEventNames } from "../lib/games.js";
import { LiveStream, coalesce, markStale } from "../lib/live.js";
import { startPage } from "../lib/page.js";
import { TableTiles } from "../lib/tiles.js";

// A glance's worth of results.
const RESULTS_SHOWN = 10;

startPage();
useToken("display");

const sections = new Map();     // venue id → {el, head, grid}
let venueNames = new Map();
let tableNames = new Map();

function sectionFor(venue) {
  let s = sections.get(venue.id);
  if (!s) {
    const head = h("h2");
    const grid = h("div.grid");
    const el = h("section.venue", { dataset: { venue: venue.id }, "aria-label": `Venue ${venue.name}` }, head, grid);
    $("#venues").append(el);
    s = { el, head, grid };
    sections.set(venue.id, s);
  }
  fill(s.head, venue.name, h("span.venue-daemon", { dataset: { daemon: venue.daemon } },
    venue.daemon === "online" ? "open" : "arbiterd not running"));
  return s;
}

const tiles = new TableTiles((table, el) => {
  const s = sections.get(table.venue) || sectionFor({ id: table.venue, name: table.venue, daemon: "online" });
  s.grid.append(el);
});

const refreshAll = coalesce(async () => {
  try {
    const [venues, tables] = await Promise.all([api.get("/v1/venues"), api.getAll("/v1/tables")]);
    markStale("venues", false);
    venueNames = new Map(venues.items.map((v) => [v.id, v.name]));
    tableNames = new Map(tables.map((t) => [t.id, t.name]));
    for (const v of venues.items) sectionFor(v);
    tiles.sync(tables);
    for (const [id, s] of sections) {
      if (!tables.some((t) => t.venue === id) && !s.grid.children.length) fill(s.grid, h("p.muted", "No tables"));
    }
  } catch (e) {
    markStale("venues", true);
    throw e;
  }
});

// ---- results -------------------------------------------------------------

function resultItem(m) {
  const places = (m.result && m.result.placements) || [];
  const where = `${venueNames.get(m.venue) || m.venue}${m.table ? `, table ${tableNames.get(m.table) || m.table}` : ""}`;
  return h("li", { dataset: { match: m.id, venue: m.venue } },
    h("strong", places.length ? `${playerName(m, places[0].seat)} wins` : "Finished"),
    h("span.muted", ` · ${where} · match ${m.id}`),
    places.length > 1 ? h("div", places.slice(1).map((p) => `${ordinal(p.place)} ${playerName(m, p.seat)}`).join(", ")) : null);
}

const refreshResults = coalesce(async () => {
  const page = await api.get("/v1/matches?state=finished&order=desc&limit=" + RESULTS_SHOWN);
  fill($("#results"), page.items.map(resultItem));
  if (!page.items.length) fill($("#results"), h("li.muted", "No results yet"));
});

// ---- streams -------------------------------------------------------------

new LiveStream("/v1/events?topic=table", ["table_created", "match_created", "match_ended"], {
  open: refreshAll,
  reset: refreshAll,
  event(name, ev) {
    if (!ev) return;
    if (name === "table_created" || tiles.tableEvent(name, ev)) refreshAll();
    if (name === "match_ended" && ev.state === "finished") refreshResults();
  },
}).start();

const startMatchStream = () => allEventNames().then((names) => new LiveStream("/v1/events?topic=match", names, {
  open: () => tiles.refreshAll(),
  reset: () => tiles.refreshAll(),
  event: (name, ev) => tiles.matchEvent(name, ev),
}).start(), () => setTimeout(startMatchStream, 1000));
startMatchStream();

new LiveStream("/v1/events?topic=tournament", ["result_recorded"], {
  open: refreshResults,
  reset: refreshResults,
  event: () => refreshResults(),
}).start();
