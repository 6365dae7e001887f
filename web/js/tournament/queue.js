// web/js/tournament/queue.js — up next, per venue table, from
// GET /v1/tournaments/{id}/queue: the matches given to each table that are
// not done (called first: they are being played), by stage, round and
// table number; matches given no venue table under "Any table".
import { h } from "../lib/dom.js";
import { stageMatchState } from "./words.js";

export function drawQueue(queue, { tableName }) {
  const rows = queue.tables.filter((t) => t.matches.length);
  if (!rows.length) return h("p.muted", "Nothing waiting.");
  return h("div.queue", rows.map((row) => h("section.queue-table", {
    dataset: { table: row.table ?? "" }, "aria-label": row.table ? `Table ${tableName(row.table)}` : "Any table",
  },
  h("h3", row.table ? `Table ${tableName(row.table)}` : "Any table"),
  h("ol.plain", row.matches.map((m) => h("li", { dataset: { stageMatch: m.id, state: m.state } },
    h("span.state", { dataset: { state: m.state } }, stageMatchState(m.state)), " ",
    m.participants.map((p) => p.name).join(" v "),
    h("span.muted", ` · stage ${m.stage}, round ${m.round}, table ${m.table_no}`),
    m.match ? [" · ", h("a", { href: `table?match=${m.match}` }, "watch")] : null))))));
}
