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
import { $, announce, fill, h } from "../lib/dom.js";
import { matchState, ordinal, playerName } from "../lib/format.js";
import { allEventNames, loadGame, makeContext } from "../lib/games.js";
import { LiveStream, coalesce, markStale } from "../lib/live.js";
import { startPage } from "../lib/page.js";

// A glance's worth of results.
const RESULTS_SHOWN = 8;
// Pending matches shown per table in "Up next".
const QUEUE_SHOWN = 3;
// The events of GET /v1/tournaments/{id}/events (docs/openapi.yaml).
const TOURNAMENT_EVENTS = ["tournament_changed", "registration_changed", "round_started", "bracket_advanced",
  "match_called", "result_recorded", "standings_changed"];

startPage();
useToken("display");

const tiles = new Map();        // table id → {table, el, body, matchId, renderer, refresh, match}
let tableNames = new Map();

// ---- tiles ---------------------------------------------------------------

const refreshTables = coalesce(async () => {
  try {
    const tables = await api.getAll("/v1/tables");
    markStale("tables", false);
    tableNames = new Map(tables.map((t) => [t.id, t.name]));
    for (const t of tables) {
      const tile = tileFor(t);
      if (t.match && t.match !== tile.matchId) setMatch(tile, t.match);
      else if (tile.matchId) tile.refresh();
      else if (!t.match) fill(tile.body, h("p.muted", "No match now"));
    }
  } catch (e) {
    markStale("tables", true);
    throw e;
  }
});

function tileFor(table) {
  let tile = tiles.get(table.id);
  if (tile) return tile;
  const head = h("h3");
  const body = h("div.tile-body");
  const el = h("article.tile", { dataset: { table: table.id }, "aria-label": `Table ${table.name}` }, head, body);
  $("#tiles").append(el);
  tile = { table, el, head, body, matchId: null, renderer: null, match: null, refresh: () => {} };
  fill(head, `Table ${table.name}`);
  tiles.set(table.id, tile);
  return tile;
}

async function setMatch(tile, matchId) {
  tile.matchId = matchId;
  let match, game;
  try {
    match = await api.get(`/v1/matches/${matchId}`);
    game = await loadGame(match.game);
  } catch (e) {
    if (tile.matchId === matchId) tile.matchId = null;     // the next refresh tries again
    throw e;
  }
  if (tile.matchId !== matchId) return;
  tile.match = match;
  const ctx = makeContext(game, { getMatch: () => tile.match });
  const area = h("div.game-area", { dataset: { game: match.game, match: matchId } });
  fill(tile.body, area);
  tile.renderer = game.module.tile(area, ctx);
  tile.game = game;
  tile.refresh = coalesce(async () => {
    const m = await api.get(`/v1/matches/${matchId}`);
    if (tile.matchId !== matchId) return;
    tile.match = m;
    drawTile(tile);
  });
  drawTile(tile);
}

function drawTile(tile) {
  const m = tile.match;
  fill(tile.head, `Table ${tile.table.name}`, h("span.tile-players", m.seats.map((s) => s.name).join(", ")),
    h("span.state", { dataset: { state: m.state } }, matchState(m.state)));
  if (m.view) tile.lastView = m.view;
  tile.renderer.update(tile.lastView || null, m);
  const winner = m.result && m.result.finished ? m.result.winner : null;
  tile.body.querySelector(".tile-winner")?.remove();
  if (winner) tile.body.append(h("p.winner-banner.tile-winner", `${playerName(m, winner)} wins`));
}

function tileOfMatch(matchId) {
  for (const t of tiles.values()) if (t.matchId === matchId) return t;
  return null;
}

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
  const finished = await api.getAll("/v1/matches?state=finished");
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
    if (!ev) return;
    const tile = tiles.get(ev.table);
    if (name === "match_created") {
      if (tile) setMatch(tile, ev.match);
      else refreshTables();
    } else if (name === "match_ended") {
      tile?.refresh();
      if (ev.state === "finished") refreshResults();
    }
  },
}).start();

// The match stream listens to every game's event names, which come from
// GET /v1/games: tried again until arbiterd answers.
const startMatchStream = () => allEventNames().then((names) => new LiveStream("/v1/events?topic=match", names, {
  open: () => tiles.forEach((t) => t.refresh()),
  reset: () => tiles.forEach((t) => t.refresh()),
  event(name, ev) {
    const tile = ev && tileOfMatch(ev.match);
    if (!tile) return;
    tile.refresh();
    if (name === "match_finished" && tile.game) announce(makeContext(tile.game, { getMatch: () => tile.match }).describe(ev));
  },
}).start(), () => setTimeout(startMatchStream, 1000));
startMatchStream();

new LiveStream("/v1/events?topic=tournament", TOURNAMENT_EVENTS, {
  open: () => { refreshQueue(); refreshResults(); },
  reset: () => { refreshQueue(); refreshResults(); },
  event: () => refreshQueue(),
}).start();
