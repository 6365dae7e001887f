// web/js/pages/player.js — one player: their ratings now (GET
// /v1/players/{id}, one per game), and a rating's history drawn as a line
// chart (GET /v1/players/{id}/ratings?game=G&system=S: one point per rated
// match, oldest first) with the same history as a table, its text
// alternative.  /player?id=P&game=G&system=openskill|glicko2; /player
// alone lists the players.  A result recorded or corrected anywhere
// (GET /v1/events?topic=tournament), and a game's ratings written
// (topic=ratings, ratings_changed), make it ask again.
import * as api from "../lib/api.js";
import { useToken } from "../lib/auth.js";
import { $, fill, h } from "../lib/dom.js";
import { fetched } from "../lib/fetched.js";
import { LiveStream } from "../lib/live.js";
import { addressWith, intParam, notice, startPage } from "../lib/page.js";
import { lineChart } from "../ratings/chart.js";
import { change, SYSTEMS, systemOf } from "../ratings/words.js";
import { day } from "../tournament/words.js";

startPage();
useToken("organiser");

const id = intParam("id");
const params = new URLSearchParams(location.search);
let game = params.get("game");
let system = params.get("system") === "glicko2" ? "glicko2" : "openskill";
let player = null;
let games = [];
const tournaments = new Map();          // id → name, for the history's links

function drawPlayer(p) {
  player = p;
  document.title = `${p.name} — arbiter`;
  fill($("#title"), p.name);
  fill($("#head"), p.club ? h("span", p.club) : null, p.active ? null : h("span.state", "Retired"));
  const rated = p.ratings || [];
  if (!game) game = rated.length ? rated[0].game : (games[0] && games[0].name);
  $("#leaderboard-link").href = `leaderboard?game=${encodeURIComponent(game || "")}&system=${system}`;
  fill($("#ratings"), rated.length ? h("table.list.ratings-now",
    h("caption.visually-hidden", `${p.name}'s ratings`),
    h("thead", h("tr", [["Game"], ["OpenSkill ordinal", 1], ["μ, σ"], ["Matches", 1], ["Glicko-2", 1], ["Duels", 1]]
      .map(([c, n]) => h(`th${n ? ".num" : ""}`, { scope: "col" }, c)))),
    h("tbody", rated.map((r) => h("tr", { dataset: { game: r.game } },
      h("th", { scope: "row" }, h("a", { href: `leaderboard?game=${encodeURIComponent(r.game)}` }, gameName(r.game))),
      h("td.num", SYSTEMS.openskill.text(r.ordinal)), h("td", SYSTEMS.openskill.detail(r)), h("td.num", String(r.games)),
      h("td.num", r.glicko2 && r.glicko2.games ? `${SYSTEMS.glicko2.text(r.glicko2.rating)} (${SYSTEMS.glicko2.detail(r.glicko2)})` : "—"),
      h("td.num", r.glicko2 ? String(r.glicko2.games) : "0")))))
    : h("p.muted", "No rated results yet."));
  drawPickers();
}

const gameName = (name) => (games.find((g) => g.name === name) || {}).display_name || name;

function drawPickers() {
  const names = new Set([...(player.ratings || []).map((r) => r.game), ...games.map((g) => g.name)]);
  fill($("#game"), [...names].map((n) => h("option", { value: n, selected: n === game }, gameName(n))));
  $("#system").value = system;
}

function drawHistory(items) {
  const sys = systemOf(system);
  const title = `${player.name}: ${sys.name} in ${gameName(game)}`;
  fill($("#history-heading"), `Rating history: ${sys.name}, ${gameName(game)}`);
  if (!items.length) {
    fill($("#chart"), h("p.muted", system === "glicko2" ? "No rated duels in this game yet." : "No rated matches in this game yet."));
    fill($("#history"));
    return;
  }
  const values = items.map((it) => sys.value(it.after));
  const first = values[0];
  const last = values[values.length - 1];
  const summary = `${items.length} rated ${items.length === 1 ? "match" : "matches"} from ${day(items[0].at)} to ${day(items[items.length - 1].at)}: ` +
    `${sys.text(first)} after the first, ${sys.text(last)} now; highest ${sys.text(Math.max(...values))}, lowest ${sys.text(Math.min(...values))}. ` +
    "The table below lists every match.";
  fill($("#chart"), lineChart(items.map((it, i) => ({ y: sys.value(it.after), label: `Match ${i + 1}, ${day(it.at)}` })), {
    title, summary, yTitle: sys.axis, xTitle: "Rated matches, oldest first", format: sys.text,
    tick: (v) => String(Number(v.toFixed(2))),
  }), h("p.muted.chart-summary", summary));
  fill($("#history"), h("table.list.history", { dataset: { system } },
    h("caption", `Every rated match (${sys.name})`),
    h("thead", h("tr", [["#", 1], ["Recorded"], ["Tournament"], ["Before", 1], ["After", 1], ["Change", 1]]
      .map(([c, n]) => h(`th${n ? ".num" : ""}`, { scope: "col" }, c)))),
    h("tbody", items.map((it, i) => {
      const c = change(system, it.before, it.after);
      return h("tr", { dataset: { match: it.match } },
        h("td.num", String(i + 1)), h("td", day(it.at)),
        h("td", h("a", { href: `tournament?id=${it.tournament}` }, tournaments.get(it.tournament) || `Tournament ${it.tournament}`)),
        h("td.num", sys.text(sys.value(it.before))), h("td.num", sys.text(sys.value(it.after))),
        h(`td.num${c.cls ? `.${c.cls}` : ""}`, h("span", { "aria-hidden": "true" }, c.text), h("span.visually-hidden", `${c.word} ${c.text.replace(/[▲▼]\s*/, "")}`)));
    }))));
}

const refreshPlayer = fetched(async () => {
  if (!games.length) games = (await api.get("/v1/games")).items;
  return api.get(`/v1/players/${id}`);
}, (p) => { drawPlayer(p); refreshHistory(); }, {
  onError: (e) => fill($("#main"), notice(`Player ${id}: ${e.message}`, h("p", h("a", { href: "player" }, "Every player")))),
});

const refreshHistory = fetched(async () => {
  if (!player || !game) return [];
  const [hist, ts] = await Promise.all([
    api.get(`/v1/players/${id}/ratings?game=${encodeURIComponent(game)}&system=${system}`),
    tournaments.size ? null : api.getAll("/v1/tournaments"),
  ]);
  if (ts) for (const t of ts) tournaments.set(t.id, t.name);
  return hist.items;
}, drawHistory, { onError: (e) => fill($("#chart"), h("p.error", e.message)) });

function pick() {
  game = $("#game").value;
  system = $("#system").value;
  history.replaceState(history.state, "", addressWith({ id, game, system }));
  $("#leaderboard-link").href = `leaderboard?game=${encodeURIComponent(game)}&system=${system}`;
  refreshHistory();
}
$("#game").addEventListener("change", pick);
$("#system").addEventListener("change", pick);
$("#history-form").addEventListener("submit", (e) => { e.preventDefault(); pick(); });

// /player alone: every player, each a link.
const listPlayers = fetched(() => api.getAll("/v1/players"), (items) => {
  fill($("#main"), h("section.panel", { "aria-labelledby": "players-heading" },
    h("h2#players-heading", "Players"),
    items.length ? h("ul.live-data.player-list", [...items].sort((a, b) => a.name.localeCompare(b.name)).map((p) => h("li",
      h("a", { href: `player?id=${p.id}` }, p.name), p.club ? h("span.muted", ` · ${p.club}`) : null)))
      : h("p.muted", "No players yet.")));
});

if (id) {
  new LiveStream("/v1/events?topic=tournament", ["result_recorded", "standings_changed"], {
    open: refreshPlayer, reset: refreshPlayer, event: refreshPlayer,
  }).start();
  // The history is a cache written after the standings: this says it is there.
  new LiveStream("/v1/events?topic=ratings", ["ratings_changed"], {
    open: refreshPlayer, reset: refreshPlayer, event: refreshPlayer,
  }).start();
} else {
  fill($("#title"), "Players");
  new LiveStream("/v1/events?topic=tournament", ["registration_changed"], {
    open: listPlayers, reset: listPlayers, event: listPlayers,
  }).start();
}
