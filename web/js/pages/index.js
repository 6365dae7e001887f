// web/js/pages/index.js — the start page: where to go.  The tables are
// read once (nothing on this page is live), and each links to its display.
import * as api from "../lib/api.js";
import { $, fill, h } from "../lib/dom.js";
import { startPage } from "../lib/page.js";

startPage();
const conn = $("#connection");

(async () => {
  try {
    const [health, tables] = await Promise.all([api.get("/v1/health"), api.getAll("/v1/tables")]);
    fill($("#version"), health.version);
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
