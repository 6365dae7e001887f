// web/js/pages/index.js — the start page: where to go.  The tables, the
// tournaments and the games are read once (nothing on this page is live):
// each table links to its display, each tournament to its page (the ones
// not finished), each game to its leaderboard.
import * as api from "../lib/api.js";
import { $, fill, h } from "../lib/dom.js";
import { startPage } from "../lib/page.js";
import { tournamentState } from "../tournament/words.js";

startPage();
const conn = $("#connection");

(async () => {
  try {
    const [health, tables, tournaments, games] = await Promise.all([api.get("/v1/health"), api.getAll("/v1/tables"),
      api.getAll("/v1/tournaments"), api.get("/v1/games")]);
    fill($("#version"), health.version);
    const current = tournaments.filter((t) => t.state !== "finished").reverse();
    fill($("#tournaments"), current.length ? current.map((t) => h("li",
      h("a", { href: `tournament?id=${t.id}` }, t.name), ` — ${tournamentState(t.state)}`))
      : h("li", "No tournament under way. ", h("a", { href: "tournaments" }, "Every tournament")));
    fill($("#leaderboards"), games.items.map((g) => h("li",
      h("a", { href: `leaderboard?game=${encodeURIComponent(g.name)}` }, g.display_name))));
    fill($("#tables"), tables.length ? tables.map((t) => h("li",
      h("a", { href: `table?table=${t.id}` }, `Table ${t.name}`),
      t.match ? ` — match ${t.match} live` : " — no match now")) : h("li", "No tables yet (POST /v1/tables)."));
    document.body.dataset.connection = "live";
    conn.textContent = "Online";
  } catch (e) {
    fill($("#tables"), h("li.error", e.message));
    document.body.dataset.connection = "reconnecting";
    conn.textContent = "arbiterd cannot be reached";
  }
})();
