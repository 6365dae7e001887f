// web/js/tournament/rounds.js — one round of a stage: its tables, each
// with its players in seat order, its state and its result, from
// GET /v1/tournaments/{id}/matches?stage=N&round=R.
//
// A called match links to the table display of the live match playing it.
// For the organiser (opts.organiser), a match still to be called has a
// "Call" button with the venue table to call it to (its own by default):
// POST …/matches/{id}/call, which makes the live match at that table.
import { h } from "../lib/dom.js";
import { ordinal } from "../lib/format.js";
import { stageMatchState } from "./words.js";

// drawRound(matches, opts): opts.tableName(id), opts.tables (the venue
// tables), opts.labels (bracket id → "W1-1"), opts.organiser, opts.onCall(sm,
// tableId or null), opts.satOut (names of the stage's players seated at no
// table this round).
export function drawRound(matches, opts) {
  if (!matches.length) return h("p.muted", "No tables in this round yet.");
  return h("div",
    h("div.round-grid", matches.map((m) => matchCard(m, opts))),
    opts.satOut && opts.satOut.length
      ? h("p.sat-out", h("strong", "Not seated this round: "), opts.satOut.join(", "),
        h("span.muted", " (a bye, or dropped)"))
      : null);
}

function matchCard(m, opts) {
  const venue = m.table ? `Table ${opts.tableName(m.table)}` : null;
  const label = m.bracket_id !== null && m.bracket_id !== undefined ? opts.labels?.get(m.bracket_id) : null;
  const ranks = new Map((m.result || []).map((r) => [r.player, r]));
  const titleId = `round-match-${m.id}`;
  return h("article.round-match", { dataset: { stageMatch: m.id, state: m.state }, "aria-labelledby": titleId },
    h("h3", { id: titleId }, label || `Table ${m.table_no}`, venue ? h("span.muted", ` · ${venue}`) : null),
    h("p.match-state",
      h("span.state", { dataset: { state: m.state } }, stageMatchState(m.state)),
      m.match ? [" ", h("a", { href: `table?match=${m.match}` }, `match ${m.match}`)] : null),
    h("table.seats",
      h("caption.visually-hidden", `Players of ${label || `table ${m.table_no}`}`),
      h("thead", h("tr", h("th", { scope: "col" }, "Seat"), h("th", { scope: "col" }, "Player"),
        h("th", { scope: "col" }, "Result"))),
      h("tbody", m.participants.map((p) => {
        const r = ranks.get(p.player);
        const first = r && r.rank === 1 && !r.forfeit;
        return h(`tr${first ? ".first" : ""}`, { dataset: { player: p.player } },
          h("td.seat", String(p.seat)),
          h("th", { scope: "row" }, h("a", { href: `player?id=${p.player}` }, p.name)),
          h("td.result", r ? `${ordinal(r.rank)}${r.forfeit ? " (forfeit)" : ""}${first ? " ✓" : ""}` : ""));
      }))),
    opts.organiser && m.state === "pending" ? callForm(m, opts) : null,
    opts.organiser && m.state === "called" && m.match
      ? h("p.muted", h("a", { href: `referee?match=${m.match}` }, `Referee console for match ${m.match}`)) : null);
}

function callForm(m, opts) {
  const names = m.participants.map((p) => p.name).join(" v ");
  const own = m.table ? `Its table (${opts.tableName(m.table)})` : "No table";
  const select = h("select", { name: "table" },
    h("option", { value: "" }, own),
    opts.tables.filter((t) => t.id !== m.table).map((t) => h("option", { value: t.id }, `Table ${t.name}`)));
  const form = h("form.call-form",
    h("label", `Call ${names} to`, select),
    h("button.primary", { type: "submit" }, "Call"));
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    opts.onCall(m, select.value ? Number(select.value) : null, form);
  });
  return form;
}
