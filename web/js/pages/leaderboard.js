// web/js/pages/leaderboard.js — a game's players by rating, from
// GET /v1/leaderboards/{game}: /leaderboard?game=G&system=openskill|glicko2
// &from=YYYY-MM-DD&to=YYYY-MM-DD (a season: from included, to not; none:
// all time).  The server reads the table its rating worker keeps
// (docs/ratings.md); the page asks again when the worker says it wrote a
// game's ratings (GET /v1/events?topic=ratings, ratings_changed).  A
// season asked for the first time may be answered 503 while the worker
// computes it: the page says so and asks again (fetched.js).
import * as api from "../lib/api.js";
import { useToken } from "../lib/auth.js";
import { $, fill, h } from "../lib/dom.js";
import { fetched } from "../lib/fetched.js";
import { LiveStream } from "../lib/live.js";
import { addressWith, startPage } from "../lib/page.js";
import { systemOf } from "../ratings/words.js";

startPage();
useToken("organiser");

const params = new URLSearchParams(location.search);
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const shown = {
  game: params.get("game"),
  system: params.get("system") === "glicko2" ? "glicko2" : "openskill",
  from: DATE.test(params.get("from") || "") ? params.get("from") : null,
  to: DATE.test(params.get("to") || "") ? params.get("to") : null,
};
let games = [];

function draw(board) {
  const sys = systemOf(board.system);
  const game = games.find((g) => g.name === board.game);
  const gameName = game ? game.display_name : board.game;
  fill($("#title"), `Leaderboard: ${gameName}`);
  document.title = `${gameName} leaderboard — arbiter`;
  fill($("#board-heading"), `${gameName}, ${sys.name}`);
  fill($("#board-note"), `${shown.from || shown.to ? `Results recorded ${shown.from ? `from ${shown.from}` : ""}${shown.from && shown.to ? " " : ""}${shown.to ? `until before ${shown.to}` : ""}` : "All time"}. `,
    board.system === "glicko2" ? "Glicko-2 rates duels only: players who never played one are not listed. " : "Sorted by the ordinal μ − 3σ, a skill the player very probably has at least. ",
    "“Provisional”: the rating rests on few matches yet.");
  if (!board.items.length) {
    fill($("#board"), h("p.muted", "No rated results yet."));
    return;
  }
  fill($("#board"), h("table.list.leaderboard", { dataset: { game: board.game, system: board.system } },
    h("caption.visually-hidden", `${gameName} leaderboard, ${sys.name}`),
    h("thead", h("tr",
      h("th.num", { scope: "col" }, "Rank"), h("th", { scope: "col" }, "Player"), h("th", { scope: "col" }, "Club"),
      h("th.num", { scope: "col" }, sys.short), h("th", { scope: "col" }, "Detail"),
      h("th.num", { scope: "col" }, sys.games), h("th", { scope: "col" }, ""))),
    h("tbody", board.items.map((r) => h("tr", { dataset: { player: r.player } },
      h("td.num", String(r.rank)),
      h("th", { scope: "row" }, h("a", { href: `player?id=${r.player}&game=${encodeURIComponent(board.game)}&system=${board.system}` }, r.name)),
      h("td", r.club || ""),
      h("td.num.rating", { dataset: { value: sys.value(r.rating) } }, sys.text(sys.value(r.rating))),
      h("td.muted", sys.detail(r.rating)),
      h("td.num", String(r.games)),
      h("td", r.provisional ? h("span.provisional", "Provisional") : ""))))));
}

const refresh = fetched(async () => {
  if (!games.length) games = (await api.get("/v1/games")).items;
  if (!shown.game && games.length) shown.game = games[0].name;
  drawFilters();
  const q = new URLSearchParams({ system: shown.system });
  if (shown.from) q.set("from", shown.from);
  if (shown.to) q.set("to", shown.to);
  try {
    return await api.get(`/v1/leaderboards/${encodeURIComponent(shown.game)}?${q}`);
  } catch (e) {
    if (e.status === 503 && (shown.from || shown.to))
      fill($("#board"), h("p.muted", "This season's ratings are being computed from its results…"));
    throw e;
  }
}, draw, { onError: (e) => fill($("#board"), h("p.error", e.message)) });

let filtersDrawn = false;
function drawFilters() {
  if (filtersDrawn) return;
  filtersDrawn = true;
  fill($("#game"), games.map((g) => h("option", { value: g.name, selected: g.name === shown.game }, g.display_name)));
  $("#system").value = shown.system;
  $("#from").value = shown.from || "";
  $("#to").value = shown.to || "";
}

function apply() {
  shown.game = $("#game").value || shown.game;
  shown.system = $("#system").value;
  shown.from = $("#from").value || null;
  shown.to = $("#to").value || null;
  history.replaceState(history.state, "", addressWith(shown));
  refresh();
}

$("#filters").addEventListener("submit", (e) => { e.preventDefault(); apply(); });
$("#game").addEventListener("change", apply);
$("#system").addEventListener("change", apply);
$("#all-time").addEventListener("click", () => {
  $("#from").value = "";
  $("#to").value = "";
  apply();
});

new LiveStream("/v1/events?topic=ratings", ["ratings_changed"], { open: refresh, reset: refresh, event: refresh }).start();
