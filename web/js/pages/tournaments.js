// web/js/pages/tournaments.js — every tournament, newest first, with its
// game, state, players and where it is; each links to its page.  Kept live
// by the stream of every tournament (GET /v1/events?topic=tournament).
import * as api from "../lib/api.js";
import { useToken } from "../lib/auth.js";
import { $, fill, h } from "../lib/dom.js";
import { fetched } from "../lib/fetched.js";
import { gameInfo } from "../lib/games.js";
import { LiveStream } from "../lib/live.js";
import { startPage } from "../lib/page.js";
import { formatName, tournamentState, when } from "../tournament/words.js";

// The events of a tournament's stream that change what this list shows.
const EVENTS = ["tournament_changed", "registration_changed", "round_started", "bracket_advanced"];

startPage();
useToken("organiser");

const gameNames = new Map();

function draw(items) {
  if (!items.length) {
    fill($("#list"), h("p.muted", "No tournaments yet."));
    return;
  }
  fill($("#list"), h("table.list.tournaments",
    h("caption.visually-hidden", "Tournaments, newest first"),
    h("thead", h("tr", ["Tournament", "Game", "State", "Players", "Stages", "Now", "Created"].map((c) => h("th", { scope: "col" }, c)))),
    h("tbody", [...items].reverse().map((t) => h("tr", { dataset: { tournament: t.id, state: t.state } },
      h("th", { scope: "row" }, h("a", { href: `tournament?id=${t.id}` }, t.name)),
      h("td", h("a", { href: `leaderboard?game=${encodeURIComponent(t.game)}`, dataset: { game: t.game } }, gameNames.get(t.game) || t.game)),
      h("td", h("span.state", { dataset: { state: t.state } }, tournamentState(t.state))),
      h("td", `${t.registrations} registered, ${t.checked_in} checked in`),
      h("td", t.stages.map((s) => formatName(s.format)).join(" → ") || "—"),
      h("td", t.current ? `stage ${t.current.stage}${t.current.round ? `, round ${t.current.round}` : ""}` : "—"),
      h("td", when(t.created_at)))))));
  for (const g of new Set(items.map((t) => t.game))) {
    if (gameNames.has(g)) continue;
    gameInfo(g).then((info) => {
      gameNames.set(g, info.display_name);
      for (const a of document.querySelectorAll(`a[data-game="${CSS.escape(g)}"]`)) a.textContent = info.display_name;
    }, () => {});
  }
}

const refresh = fetched(() => api.getAll("/v1/tournaments"), draw, {
  onError: (e) => fill($("#list"), h("p.error", e.message)),
});

new LiveStream("/v1/events?topic=tournament", EVENTS, { open: refresh, reset: refresh, event: refresh }).start();
