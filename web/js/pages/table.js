// web/js/pages/table.js — the table display: one match, big, for the
// players of a table and the people around it.
//
// /table?table=ID follows the table (follow.js TableFeed): it shows the
// table's live match, keeps a finished one on screen with its result, and
// switches when the next match is created there.  /table?match=ID shows
// one match.  The game's module draws the match (its `table` part), the
// generic renderer a game without one; every event is announced (the
// polite live region, and the list under the board).
import * as api from "../lib/api.js";
import { useToken } from "../lib/auth.js";
import { $, announce, fill, h } from "../lib/dom.js";
import { TableFeed, MatchFeed } from "../lib/follow.js";
import { matchState } from "../lib/format.js";
import { eventNames, loadGame, makeContext } from "../lib/games.js";
import { intParam, notice, startPage } from "../lib/page.js";

startPage();
useToken("display");
const tableId = intParam("table");
const matchId = intParam("match");
const board = $("#board");

let current = null;             // {id, feed}
let generation = 0;             // which show() is the latest

async function show(id) {
  if (current && current.id === id) return;
  const mine = ++generation;
  if (current) current.feed.stop();
  current = { id, feed: null };
  let match;
  try {
    match = await api.get(`/v1/matches/${id}`);
  } catch (e) {
    fill(board, notice(`Match ${id}: ${e.message}`));
    current = null;
    return;
  }
  const game = await loadGame(match.game);
  if (mine !== generation) return;
  let latest = match;
  const ctx = makeContext(game, { getMatch: () => latest });
  const area = h("div.game-area", { dataset: { game: match.game, match: id } });
  fill(board, area);
  fill($("#announcements"));
  const renderer = game.module.table(area, ctx);
  current.feed = new MatchFeed(id, {
    names: eventNames(game.info),
    onData(view, m) {
      if (m) latest = m;
      renderHead(game, latest);
      renderer.update(view, latest);
    },
    onEvent(ev) {
      renderer.event?.(ev);
      announce(ctx.describe(ev));
    },
  }).start();
}

function renderHead(game, match) {
  const names = match.seats.map((s) => s.name).join(", ");
  fill($("#head"), h("span", game.info.display_name), h("span", `match ${match.id}`), h("span", names),
    h("span.state", { dataset: { state: match.state } }, matchState(match.state)));
  document.title = `${game.info.display_name}, match ${match.id} — arbiter`;
}

if (tableId) {
  new TableFeed(tableId, {
    onMatch(id, table) {
      if (table) fill($("#title"), `Table ${table.name}`);
      show(id);
    },
    onIdle(table) {
      fill($("#title"), `Table ${table.name}`);
      if (!current) fill(board, notice("No match at this table yet. The next one shows here as soon as it is created."));
    },
    onEnded() {
      current?.feed?.refresh();
    },
  }).start();
} else if (matchId) {
  fill($("#title"), `Match ${matchId}`);
  show(matchId);
} else {
  fill(board, notice("Which table? Open this page as /table?table=ID (the start page lists the tables)."),
  );
  document.body.dataset.connection = "live";
}
