// web/js/pages/station.js — a seat's station: the tablet at a player's
// seat shows that seat's own state, big and simple.
//
// /station?table=ID&seat=N&access_token=T (a station token: the seat of
// every match at that table) or ?match=M&seat=N&access_token=T (a match's
// seat token).  The token moves to sessionStorage (auth.js).  The page
// reads only its own seat's view and stream (follow.js, audience "seat"),
// so it cannot show another seat's hidden information: the server never
// sends it one.  It sends only its own seat's inputs, for the game's
// module (ctx.send): POST /v1/matches/{id}/inputs with the station's
// token, whose seat the server takes; a refusal is shown in words in
// #sent (role="status").
import { useToken } from "../lib/auth.js";
import { $, announce, fill, h } from "../lib/dom.js";
import { MatchFeed, TableFeed } from "../lib/follow.js";
import { matchState, playerName } from "../lib/format.js";
import { eventNames, loadGame, makeContext } from "../lib/games.js";
import { intParam, notice, startPage } from "../lib/page.js";
import * as api from "../lib/api.js";

startPage();
const tableId = intParam("table");
const matchId = intParam("match");
const seat = intParam("seat");
const area = $("#seat");

let current = null;
let generation = 0;

// A refusal in words: the engine's (409, its `refusal`), the token's
// (401/403) or arbiterd's being out of reach.
function refusalText(e) {
  const p = e.problem || {};
  if (e.status === 401 || e.status === 403) {
    return `Not sent: this station may not send that (${e.message}). Ask the referee.`;
  }
  if (e.status === 0) return "Not sent: arbiterd cannot be reached. Try again.";
  return p.refusal ? `Not sent: refused (${p.refusal}): ${e.message}` : `Not sent: ${e.message}`;
}

// The seat's own input (docs/web.md, "Game modules": ctx.send): resolves
// with the reply, or with null once a refusal is shown.  The input's seat
// is the token's; the page refetches the seat's view after a reply.
async function sendInput(id, input) {
  const box = $("#sent");
  fill(box);
  delete box.dataset.outcome;
  try {
    const reply = await api.post(`/v1/matches/${id}/inputs`, input);
    if (current && current.id === id) current.feed?.refresh();
    return reply;
  } catch (e) {
    box.dataset.outcome = "refused";
    fill(box, h("span.error", refusalText(e)));
    return null;
  }
}

function refused(e) {
  fill(area, notice(e.status === 401 || e.status === 403
    ? "This station's token was refused: it may have been replaced by a newer link. Ask the referee for the station's link again."
    : `Cannot open the seat: ${e.message}`));
}

async function show(id) {
  if (current && current.id === id) return;
  const mine = ++generation;
  if (current) current.feed.stop();
  current = { id, feed: null };
  let view;
  try {
    view = await api.get(`/v1/matches/${id}/seats/${seat}`);
  } catch (e) {
    current = null;
    return refused(e);
  }
  const game = await loadGame(view.game);
  if (mine !== generation) return;
  let latest = null;
  const ctx = { ...makeContext(game, { audience: "seat", seat, getMatch: () => latest }),
    send: (input) => sendInput(id, input) };
  const el = h("div.game-area", { dataset: { game: view.game, match: id } });
  fill(area, el);
  fill($("#announcements"));
  fill($("#sent"));
  const renderer = game.module.station(el, ctx);
  current.feed = new MatchFeed(id, {
    audience: "seat",
    seat,
    names: eventNames(game.info),
    onData(v, m) {
      if (m) latest = m;
      fill($("#head"), h("span", game.info.display_name), h("span", `match ${id}`),
        h("span", playerName(latest, seat)),
        latest && h("span.state", { dataset: { state: latest.state } }, matchState(latest.state)));
      renderer.update(v, latest);
    },
    onEvent(ev) {
      renderer.event?.(ev);
      announce(ctx.describe(ev));
    },
  }).start();
}

if (!seat || (!tableId && !matchId)) {
  fill(area, notice("Open this page with the station link the referee made: /station?table=ID&seat=N&access_token=…"));
  document.body.dataset.connection = "live";
} else {
  const key = tableId ? `station table=${tableId} seat=${seat}` : `station match=${matchId} seat=${seat}`;
  if (!useToken(key)) {
    fill(area, notice("This station has no token. Open the station link the referee made (it ends in access_token=…)."));
    document.body.dataset.connection = "live";
  } else if (tableId) {
    fill($("#title"), `Seat ${seat}`);
    new TableFeed(tableId, {
      onMatch(id, table) {
        if (table) fill($("#title"), `Table ${table.name}, seat ${seat}`);
        show(id);
      },
      onIdle(table) {
        fill($("#title"), `Table ${table.name}, seat ${seat}`);
        if (!current) fill(area, notice("No match at this table yet. Your seat shows here when the next one is created."));
      },
      onEnded() {
        current?.feed?.refresh();
      },
      onError: refused,
    }).start();
  } else {
    fill($("#title"), `Seat ${seat}`);
    show(matchId);
  }
}
