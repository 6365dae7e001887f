// web/js/pages/referee.js — the referee console.
//
// The referee's token is typed once and kept for the tab (auth.js).
// /referee lists the live matches and the tables (with their station
// links); /referee?match=M runs one match: start, pause, resume, abort;
// any of the game's referee inputs, each from a form built from
// GET /v1/games/{name} (inputs.js) or from the game module's own steps,
// always previewed first (POST …/preview: what it would do, rule by rule)
// and then sent; undo (a void of a chosen input of the log, with the
// voided inputs listed to enter again); confirmation of a provisional
// result; corrections of a tournament match's result with a reason.
import * as api from "../lib/api.js";
import { forgetToken, setToken, token, useToken } from "../lib/auth.js";
import { $, announce, fill, h } from "../lib/dom.js";
import { MatchFeed } from "../lib/follow.js";
import { matchState, playerName, words } from "../lib/format.js";
import { eventNames, loadGame, makeContext } from "../lib/games.js";
import { inputForm } from "../lib/inputs.js";
import { LiveStream, coalesce } from "../lib/live.js";
import { intParam, startPage } from "../lib/page.js";

// Inputs the console has its own controls for, or that only arbiterd makes.
const OWN_CONTROLS = new Set(["start", "pause", "resume", "void", "confirm"]);
// Log entries shown in "Undo", newest first.
const LOG_SHOWN = 40;
// Log fields that are the runtime's, not what a referee types again.
const NOT_RETYPED = new Set(["seq", "time_us", "window", "press_us", "received_us", "uncertainty_us", "call_name"]);

startPage();
useToken("referee");
const matchId = intParam("match");

function say(text) {
  fill($("#message"), text ? h("p", text) : null);
}

function problemText(e) {
  const p = e.problem || {};
  return p.refusal ? `Refused (${p.refusal}): ${e.message}` : e.message;
}

// ---- the token -----------------------------------------------------------

function showToken() {
  $("#token-form").hidden = Boolean(token());
  $("#token-set").hidden = !token();
}

$("#token-form").addEventListener("submit", (e) => {
  e.preventDefault();
  setToken($("#token-input").value.trim());
  $("#token-input").value = "";
  showToken();
  say("");
  start();
});
$("#token-forget").addEventListener("click", () => {
  forgetToken();
  location.reload();
});

// A 401 or 403: the token is wrong, revoked or not a referee's.
function tokenRefused(e) {
  if (e.status !== 401 && e.status !== 403) return false;
  say(`The token was refused: ${e.message} Enter a referee token.`);
  feed?.stop();
  feed = null;
  forgetToken();
  showToken();
  return true;
}

// ---- the picker ----------------------------------------------------------

const refreshPicker = coalesce(async () => {
  let tables, lists;
  try {
    [tables, ...lists] = await Promise.all([api.getAll("/v1/tables"),
      ...["ready", "running", "paused"].map((s) => api.getAll(`/v1/matches?state=${s}`))]);
  } catch (e) {
    if (!tokenRefused(e)) throw e;
    return;
  }
  const live = lists.flat();
  const atTables = new Set(tables.map((t) => t.match).filter(Boolean));
  fill($("#picker-list"),
    h("h3", "Tables"),
    tables.length ? h("ul.plain", tables.map((t) => h("li.panel", { dataset: { table: t.id } },
      h("p", h("strong", `Table ${t.name}`), " — ",
        t.match ? h("a", { href: `referee?match=${t.match}` }, `match ${t.match}`) : "no live match"),
      h("div.station-links", "Station links:", t.seats.map((s) => h("button", {
        type: "button", onclick: (e) => stationLink(t, s.seat, e.currentTarget),
      }, `Seat ${s.seat}`))))))
      : h("p.muted", "No tables."),
    h("h3", "Live matches at no table"),
    h("ul", live.filter((m) => !atTables.has(m.id)).map((m) => h("li",
      h("a", { href: `referee?match=${m.id}` }, `Match ${m.id}`),
      ` — ${m.game}, ${m.seats.map((s) => s.name).join(", ")} (${matchState(m.state)})`))));
});

// A station link replaces the seat's previous one, so it is made only when
// asked for, and shown once.
async function stationLink(table, seat, button) {
  try {
    const t = await api.post(`/v1/tables/${table.id}/seats/${seat}/token`);
    const url = new URL(t.station_url, location.href).href;
    button.replaceWith(h("span.station-link", `Seat ${seat}: `, h("a", { href: url }, url)));
  } catch (e) {
    if (!tokenRefused(e)) say(problemText(e));
  }
}

$("#open-form").addEventListener("submit", (e) => {
  e.preventDefault();
  location.href = `referee?match=${Number($("#open-id").value)}`;
});

// ---- one match -----------------------------------------------------------

let match = null;
let view = null;
let game = null;
let ctx = null;
let steps = null;
let tableRenderer = null;
let feed = null;

async function openMatch() {
  match = await api.get(`/v1/matches/${matchId}`);
  game = await loadGame(match.game);
  ctx = { ...makeContext(game, { audience: "referee", getMatch: () => match }), propose };
  $("#console").hidden = false;
  buildForms();
  if (game.module.refereeSteps) {
    $("#steps").hidden = false;
    steps = game.module.refereeSteps($("#steps"), ctx);
  }
  tableRenderer = game.module.table($("#table-view"), ctx);
  feed = new MatchFeed(matchId, {
    audience: "referee",
    names: eventNames(game.info),
    onData(v, m) {
      if (m) match = m;
      if (v) view = v;
      draw();
      refreshLog();
    },
    onEvent(ev) {
      announce(ctx.describe(ev));
    },
    onError: tokenRefused,
  }).start();
}

function draw() {
  fill($("#head"), h("span", game.info.display_name), h("span", `match ${match.id}`),
    h("span", match.seats.map((s) => s.name).join(", ")),
    match.table ? h("span", `table ${match.table}`) : null,
    h("span.state", { dataset: { state: match.state } }, matchState(match.state)));
  const s = match.state;
  $("#start").disabled = s !== "ready";
  $("#pause").disabled = s !== "running";
  $("#resume").disabled = s !== "paused";
  $("#abort").disabled = ["finished", "aborted"].includes(s);
  const confirmation = $("#confirmation");
  if ((confirmation.dataset.state || "") !== s) {       // drawn once per state: a button under the pointer stays
    confirmation.dataset.state = s;
    fill(confirmation, s === "provisional"
      ? h("p", "The match is over and waits for your confirmation: its result counts only once confirmed. ",
        h("button.big.primary", { type: "button", onclick: () => propose({ kind: "confirm" }) }, "Confirm the result"))
      : null);
  }
  steps?.update(view, match);
  tableRenderer.update(view, match);
  if (s === "finished") findCorrection();
}

// start, pause, resume, abort: the match's own routes.
async function control(action) {
  try {
    await api.post(`/v1/matches/${matchId}/${action}`);
    say("");
    feed.refresh();
  } catch (e) {
    if (!tokenRefused(e)) say(problemText(e));
  }
}
$("#start").addEventListener("click", () => control("start"));
$("#pause").addEventListener("click", () => control("pause"));
$("#resume").addEventListener("click", () => control("resume"));
$("#abort").addEventListener("click", () => { $("#abort-confirm").hidden = false; $("#abort-yes").focus(); });
$("#abort-no").addEventListener("click", () => { $("#abort-confirm").hidden = true; });
$("#abort-yes").addEventListener("click", () => { $("#abort-confirm").hidden = true; control("abort"); });

function buildForms() {
  const handled = new Set([...OWN_CONTROLS, ...(game.module.refereeHandles || [])]);
  const seats = match.seats.map((s) => ({ seat: s.seat, label: `${s.name} (seat ${s.seat})` }));
  const defs = game.info.inputs.filter((d) => d.from.includes("referee") && !handled.has(d.name));
  fill($("#forms"), defs.map((d) => inputForm(d, { info: game.info, seats }, propose)));
}

// ---- preview, then send --------------------------------------------------

function explanation(lines) {
  return lines && lines.length ? h("ol.explanation", lines.map((l) => h("li", l))) : h("p.muted", "Nothing to explain.");
}

function describeInput(input) {
  const parts = Object.entries(input).filter(([k, v]) => !NOT_RETYPED.has(k) && k !== "kind" && v !== null)
    .map(([k, v]) => (k === "seat" ? playerName(match, v) : `${words(k).toLowerCase()} ${Array.isArray(v) ? v.join(", ") : v}`));
  return `${words(input.kind)}${parts.length ? `: ${parts.join(", ")}` : ""}`;
}

// Shows what body would do (POST …/preview, nothing stored) with a Send
// and a Cancel; Send sends it (POST …/inputs) and shows what it did.
async function propose(body) {
  const box = $("#proposal-body");
  fill(box, h("p", `Previewing ${describeInput(body)}…`));
  $("#proposal").scrollIntoView({ block: "nearest" });
  let preview;
  try {
    preview = await api.post(`/v1/matches/${matchId}/preview`, body);
  } catch (e) {
    if (tokenRefused(e)) return;
    fill(box, h("p.error", { dataset: { outcome: "refused" } }, `${describeInput(body)} would be refused: ${problemText(e)}`),
      h("button", { type: "button", onclick: () => fill(box) }, "Dismiss"));
    return;
  }
  const send = h("button.big.primary", { type: "button" }, "Send");
  fill(box, h("h3", { dataset: { outcome: "preview" } }, `Preview: ${describeInput(body)}`),
    explanation(preview.explanation),
    h("p", send, " ", h("button", { type: "button", onclick: () => fill(box, h("p.muted", "Cancelled: nothing was sent.")) }, "Cancel")));
  send.focus();
  send.addEventListener("click", () => sendInput(body));
}

async function sendInput(body) {
  const box = $("#proposal-body");
  try {
    const reply = await api.post(`/v1/matches/${matchId}/inputs`, body);
    const voided = (reply.voided || []).filter((i) => i.kind !== "timer");
    fill(box, h("h3.ok", { dataset: { outcome: "sent" } }, `Sent as #${reply.seq}: ${describeInput(body)}`),
      explanation(reply.explanation),
      reply.voided && h("div.voided", h("h4", `Voided (${reply.voided.length}); enter again what should stand:`),
        h("ul", voided.map((i) => h("li", { dataset: { seq: i.seq } }, `#${i.seq} ${describeInput(i)} `,
          h("button", { type: "button", onclick: () => propose(retyped(i)) }, `Enter #${i.seq} again`))))));
    feed.refresh();
  } catch (e) {
    if (!tokenRefused(e)) fill(box, h("p.error", { dataset: { outcome: "refused" } }, problemText(e)));
  }
}

// A voided input as a referee would type it again: its kind, seat and
// fields, without what the runtime fills in (its seq, times, the window).
function retyped(input) {
  const body = {};
  for (const [k, v] of Object.entries(input)) if (!NOT_RETYPED.has(k) && v !== null) body[k] = v;
  return body;
}

// ---- undo ----------------------------------------------------------------

let logDrawn = "";

const refreshLog = coalesce(async () => {
  const log = await api.getAll(`/v1/matches/${matchId}/log`);
  const shown = log.slice(-LOG_SHOWN).reverse();
  // Redrawn only when it changed, so that a button the referee is about
  // to press is not replaced under the pointer.
  const drawn = JSON.stringify([match.state, shown.map((e) => [e.seq, e.refusal, e.voided_by])]);
  if (drawn === logDrawn) return;
  logDrawn = drawn;
  fill($("#log"), shown.length ? shown.map((e) => {
    const inEffect = e.refusal === null && e.voided_by === null;
    const voidable = inEffect && !["void", "confirm"].includes(e.kind) && match.state !== "finished";
    return h(`li.log-entry${inEffect ? "" : ".voided"}`, { dataset: { seq: e.seq, kind: e.kind } },
      h("strong", `#${e.seq}`), h("span", describeInput(e.input || e)),
      h("span.muted", `${e.source}${e.who ? `, ${e.who}` : ""}`),
      e.refusal ? h("span.muted", `refused: ${e.refusal}`) : null,
      e.voided_by ? h("span.muted", `voided by #${e.voided_by}`) : null,
      voidable ? h("button", { type: "button", onclick: () => propose({ kind: "void", target: e.seq }) },
        `Void #${e.seq} and after`) : null);
  }) : h("li.muted", "No inputs yet."));
});

// ---- corrections ---------------------------------------------------------

let correctionLooked = false;

// A finished match may be a tournament's: its stage match links it
// (GET /v1/tournaments/{id}/matches, `match`).
async function findCorrection() {
  if (correctionLooked) return;
  correctionLooked = true;
  for (const t of await api.getAll("/v1/tournaments")) {
    const sm = (await api.getAll(`/v1/tournaments/${t.id}/matches?state=done`)).find((m) => m.match === matchId);
    if (sm) return showCorrection(t, sm);
  }
}

function showCorrection(t, sm) {
  const rows = sm.participants.map((p) => {
    const current = (sm.result || []).find((r) => r.player === p.player) || {};
    return { p, rank: h("input", { type: "number", min: 1, step: 1, required: true, value: current.rank ?? "" }),
      forfeit: h("input", { type: "checkbox", checked: Boolean(current.forfeit) }) };
  });
  const reason = h("textarea", { required: true, rows: 2, maxlength: 500 });
  const out = h("div");
  const form = h("form",
    h("p.muted", `${t.name}, stage ${sm.stage}, round ${sm.round}: the result as it stands, to change with a reason.`),
    rows.map((r) => h("p", h("label", `Rank of ${r.p.name}`, r.rank), h("label.inline", r.forfeit, `${r.p.name} forfeited`))),
    h("label", "Reason (kept with the correction)", reason),
    h("button", { type: "submit" }, "Correct the result"), out);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const results = rows.map((r) => ({ player: r.p.player, rank: Number(r.rank.value), forfeit: r.forfeit.checked }));
    try {
      await api.post(`/v1/tournaments/${t.id}/matches/${sm.id}/corrections`, { results, reason: reason.value });
      fill(out, h("p.ok", "Corrected; the standings follow."));
    } catch (err) {
      fill(out, h("p.error", problemText(err)));
    }
  });
  fill($("#corrections-body"), form);
  $("#corrections").hidden = false;
}

// ---- start ---------------------------------------------------------------

async function start() {
  showToken();
  if (!token()) {
    document.body.dataset.connection = "live";
    $("#token-input").focus();
    return;
  }
  try {
    if (matchId) {
      if (!feed) await openMatch();
    } else {
      $("#picker").hidden = false;
      new LiveStream("/v1/events?topic=table", ["match_created", "match_ended"], {
        open: refreshPicker, reset: refreshPicker, event: refreshPicker,
      }).start();
    }
  } catch (e) {
    if (!tokenRefused(e)) say(problemText(e));
  }
}

start();
