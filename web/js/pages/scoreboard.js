// web/js/pages/scoreboard.js — the venue scoreboard: every table at a
// glance, up next and the latest results, readable across a room.
//
// Three streams of GET /v1/events keep it live, each refetching what it
// concerns: topic "table" (a match created at a table: its tile switches
// to it; a match ended: its tile shows the result, the results list gets
// it), "match" (every match's events: that match's tile refetches its
// public view) and "tournament" (the queues change).  Each tile is drawn
// by its game's module (its `tile` part) or the generic renderer.
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
const RESULTS_SHOWN = 8;
// Pending matches shown per table in "Up next".
const QUEUE_SHOWN = 3;
// The events of GET /v1/tournaments/{id}/events (docs/openapi.yaml).
const TOURNAMENT_EVENTS = ["tournament_changed", "registration_changed", "round_started", "bracket_advanced",
  "match_called", "result_recorded", "standings_changed"];

startPage();
useToken("display");

// ---- tiles ---------------------------------------------------------------

const tiles = new TableTiles((table, el) => $("#tiles").append(el));
let tableNames = new Map();
let here;                       // this arbiterd's venue (GET /v1/venues: "this")

// The venue whose tables this scoreboard shows: the one whose arbiterd
// serves it (the league's other venues are on /league).
async function venueHere() {
  if (here === undefined) here = (await api.get("/v1/venues")).items.find((v) => v.this)?.id ?? null;
  return here;
}

const refreshTables = coalesce(async () => {
  try {
    const tables = await api.getAll(api.path("/v1/tables", { venue: await venueHere() }));
    markStale("tables", false);
    tableNames = new Map(tables.map((t) => [t.id, t.name]));
    tiles.sync(tables);
  } catch (e) {
    markStale("tables", true);
    throw e;
  }
});

// ---- results and up next -------------------------------------------------

function resultItem(m) {
  const places = (m.result && m.result.placements) || [];
  const table = m.table ? `Table ${tableNames.get(m.table) || m.table}` : "No table";
  return h("li", { dataset: { match: m.id } },
    h("strong", places.length ? `${playerName(m, places[0].seat)} wins` : "Finished"),
    h("span.muted", ` · ${table} · match ${m.id}`),
    places.length > 1 ? h("div", places.slice(1).map((p) => `${ordinal(p.place)} ${playerName(m, p.seat)}`).join(", ")) : null);
}

const refreshResults = coalesce(async () => {
  const venue = await venueHere();
  const finished = (await api.getAll("/v1/matches?state=finished")).filter((m) => !venue || m.venue === venue);
  fill($("#results"), finished.slice(-RESULTS_SHOWN).reverse().map(resultItem));
  if (!finished.length) fill($("#results"), h("li.muted", "No results yet"));
});

const refreshQueue = coalesce(async () => {
  const tournaments = (await api.getAll("/v1/tournaments")).filter((t) => t.state === "running");
  const parts = [];
  for (const t of tournaments) {
    const q = await api.get(`/v1/tournaments/${t.id}/queue`);
    for (const row of q.tables) {
      const pending = row.matches.filter((m) => m.state === "pending").slice(0, QUEUE_SHOWN);
      if (!pending.length) continue;
      const table = row.table ? `Table ${tableNames.get(row.table) || row.table}` : "Any table";
      parts.push(h("div.queue-table", h("h3", `${table} — `, h("a", { href: `tournament?id=${t.id}` }, t.name)),
        h("ol.plain", pending.map((m) => h("li", { dataset: { stageMatch: m.id } },
          (m.participants || []).map((p) => p.name).join(" v "), h("span.muted", ` · round ${m.round}`))))));
    }
  }
  fill($("#up-next"), parts.length ? parts : h("p.muted", "Nothing waiting"));
});

// ---- streams -------------------------------------------------------------

new LiveStream("/v1/events?topic=table", ["match_created", "match_ended"], {
  open: refreshTables,
  reset: refreshTables,
  event(name, ev) {
    if (!ev || (ev.venue && here && ev.venue !== here)) return;     // another venue's table
    if (tiles.tableEvent(name, ev)) refreshTables();
    if (name === "match_ended" && ev.state === "finished") refreshResults();
  },
}).start();

// The match stream listens to every game's event names, which come from
// GET /v1/games: tried again until arbiterd answers.
const startMatchStream = () => allEventNames().then((names) => new LiveStream("/v1/events?topic=match", names, {
  open: () => tiles.refreshAll(),
  reset: () => tiles.refreshAll(),
  event: (name, ev) => tiles.matchEvent(name, ev),
}).start(), () => setTimeout(startMatchStream, 1000));
startMatchStream();

new LiveStream("/v1/events?topic=tournament", TOURNAMENT_EVENTS, {
  open: () => { refreshQueue(); refreshResults(); },
  reset: () => { refreshQueue(); refreshResults(); },
  event: () => refreshQueue(),
}).start();
