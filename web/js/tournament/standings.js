// web/js/tournament/standings.js — a stage's standings as a table, from
// GET /v1/tournaments/{id}/standings?stage=N (docs/tournaments.md).
//
// One row per player, best first, with the columns every stage has (rank,
// points, played, won, drawn, lost, byes), the place reached where the
// format orders by it (brackets and heats: "still in" while 0), the group
// in a groups stage, and one column per tie-break in the order the stage
// applies them (`tiebreaks`), each headed by its short name with the full
// name in an <abbr>.  Dropped players stay, marked in words.
import { h } from "../lib/dom.js";
import { ordinal } from "../lib/format.js";
import { num, tiebreak, tiebreakValue } from "./words.js";

const PLACED = new Set(["single_elimination", "double_elimination", "heats"]);

export function drawStandings(st) {
  if (!st.rows.length) return h("p.muted", "Nobody in this stage yet: its standings start when it does.");
  const tbs = st.tiebreaks.map(tiebreak);
  const placed = PLACED.has(st.format);
  const grouped = st.format === "groups";
  const col = (text, title, num) => h(`th${num ? ".num" : ""}`, { scope: "col" }, title ? h("abbr", { title }, text) : text);
  const order = tbs.length
    ? `Ordered by ${placed ? "place reached, then " : grouped ? "rank in the group, then " : ""}points, then ${tbs.map((t) => t.long.replace(/:.*/, "")).join(", then ")}.`
    : "Ordered by points.";
  return h("div.standings-wrap",
    h("table.standings", { dataset: { stage: st.stage, format: st.format } },
      h("caption", `Stage ${st.stage} standings`, h("span.muted.caption-note", ` ${order}`)),
      h("thead", h("tr",
        col("Rank", null, true), col("Player"),
        placed ? col("Place") : null, grouped ? col("Group") : null,
        col("Points", null, true), col("Pl", "Played", true), col("W", "Won", true), col("D", "Drawn", true),
        col("L", "Lost", true), col("Byes", null, true),
        tbs.map((t) => h("th.num", { scope: "col", dataset: { tiebreak: t.name } }, h("abbr", { title: t.long }, t.short))),
        col("Status"))),
      h("tbody", st.rows.map((r) => h(`tr${r.dropped ? ".dropped" : ""}`, { dataset: { player: r.player } },
        h("td.num.rank", String(r.rank)),
        h("th.player", { scope: "row" }, h("a", { href: `player?id=${r.player}` }, r.name)),
        placed ? h("td.place", r.place ? ordinal(r.place) : "still in") : null,
        grouped ? h("td.group", r.group ? String(r.group) : "—") : null,
        h("td.num.points", num(r.points)),
        h("td.num", String(r.played)), h("td.num", String(r.won)), h("td.num", String(r.drawn)),
        h("td.num", String(r.lost)), h("td.num", String(r.byes)),
        tbs.map((t) => h("td.num.tb", { dataset: { tiebreak: t.name, value: r.tiebreaks[t.name] } },
          tiebreakValue(t.name, r.tiebreaks[t.name]))),
        h("td.status", r.dropped ? "Dropped" : ""))))));
}
