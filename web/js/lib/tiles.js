// web/js/lib/tiles.js — the tiles of the front-of-house pages: one per
// table, showing the match live there, drawn by its game's module (its
// `tile` part) or the generic renderer.  The venue scoreboard and the
// league scoreboard share them; the page says where each tile goes.
//
// A tile follows its table: `match_created` at the table switches it to
// the new match, any event of its match (`match_view` included, which
// carries another venue's matches) fetches the match's public view again.
// A match of another venue is read from this venue's arbiterd like any
// other: its view comes from the league's events (docs/architecture.md,
// "Several venues").
import * as api from "./api.js";
import { announce, fill, h } from "./dom.js";
import { matchState, playerName } from "./format.js";
import { loadGame, makeContext } from "./games.js";
import { coalesce } from "./live.js";

export class TableTiles {
  // place(table, el): puts a new tile's element where the page wants it.
  constructor(place) {
    this.place = place;
    this.tiles = new Map();     // table id → {table, el, head, body, matchId, renderer, refresh, match, game}
  }

  // Makes or updates the tiles of tables (GET /v1/tables items): each
  // shows its live match, or says there is none.
  sync(tables) {
    for (const t of tables) {
      const tile = this.tileFor(t);
      tile.table = t;
      if (t.match && t.match !== tile.matchId) this.setMatch(tile, t.match);
      else if (tile.matchId) tile.refresh();
      else if (!t.match) {
        fill(tile.head, `Table ${t.name}`);
        fill(tile.body, h("p.muted", "No match now"));
      }
    }
  }

  tileFor(table) {
    let tile = this.tiles.get(table.id);
    if (tile) return tile;
    const head = h("h3");
    const body = h("div.tile-body");
    const el = h("article.tile", { dataset: { table: table.id }, "aria-label": `Table ${table.name}` }, head, body);
    this.place(table, el);
    tile = { table, el, head, body, matchId: null, renderer: null, match: null, refresh: () => {} };
    fill(head, `Table ${table.name}`);
    this.tiles.set(table.id, tile);
    return tile;
  }

  async setMatch(tile, matchId) {
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
    tile.lastView = null;
    const ctx = makeContext(game, { getMatch: () => tile.match });
    const area = h("div.game-area", { dataset: { game: match.game, match: matchId } });
    fill(tile.body, area);
    tile.renderer = game.module.tile(area, ctx);
    tile.game = game;
    tile.refresh = coalesce(async () => {
      const m = await api.get(`/v1/matches/${matchId}`);
      if (tile.matchId !== matchId) return;
      tile.match = m;
      this.draw(tile);
    });
    this.draw(tile);
  }

  draw(tile) {
    const m = tile.match;
    fill(tile.head, `Table ${tile.table.name}`, h("span.tile-players", m.seats.map((s) => s.name).join(", ")),
      h("span.state", { dataset: { state: m.state } }, matchState(m.state)));
    if (m.view) tile.lastView = m.view;
    tile.renderer.update(tile.lastView || null, m);
    const winner = m.result && m.result.finished ? m.result.winner : null;
    tile.body.querySelector(".tile-winner")?.remove();
    if (winner) tile.body.append(h("p.winner-banner.tile-winner", `${playerName(m, winner)} wins`));
  }

  ofMatch(matchId) {
    for (const t of this.tiles.values()) if (t.matchId === matchId) return t;
    return null;
  }

  refreshAll() {
    this.tiles.forEach((t) => t.refresh());
  }

  // A table event (topic "table"): true when the page should list the
  // tables again (a table it has no tile for).
  tableEvent(name, ev) {
    const tile = this.tiles.get(ev.table);
    if (name === "match_created") {
      if (!tile) return true;
      this.setMatch(tile, ev.match);
    } else if (name === "match_ended") {
      tile?.refresh();
    }
    return false;
  }

  // A match event (topic "match"): its tile fetches the view again, and a
  // finished match is announced.
  matchEvent(name, ev) {
    const tile = ev && this.ofMatch(ev.match);
    if (!tile) return;
    tile.refresh();
    if (name === "match_finished" && tile.game) announce(makeContext(tile.game, { getMatch: () => tile.match }).describe(ev));
  }
}
