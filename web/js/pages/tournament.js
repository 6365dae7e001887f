// web/js/pages/tournament.js — one tournament: its state and stages, the
// round being played with its tables and results, the bracket of an
// elimination stage, the standings with every tie-break column, up next
// per table, registration and check-in; and, for the organiser (an admin
// token typed once, kept for the tab), registering, checking in and
// dropping players, moving the state, pairing the next round and calling
// a match to its table.
//
// /tournament?id=T (?stage=N&round=R pins what is shown; without them the
// page follows the current stage and round).  Each part is fetched over
// REST (lib/fetched.js) and fetched again when the tournament's stream
// (GET /v1/tournaments/{id}/events) says it changed: nothing is polled.
import * as api from "../lib/api.js";
import { useToken } from "../lib/auth.js";
import { $, announce, fill, h } from "../lib/dom.js";
import { fetched } from "../lib/fetched.js";
import { gameInfo } from "../lib/games.js";
import { LiveStream } from "../lib/live.js";
import { addressWith, intParam, notice, startPage } from "../lib/page.js";
import { drawBracket } from "../tournament/bracket.js";
import { organiser, pairedText, problemText } from "../tournament/organiser.js";
import { drawQueue } from "../tournament/queue.js";
import { drawRegistrations, registrationForms } from "../tournament/registration.js";
import { drawRound } from "../tournament/rounds.js";
import { drawStandings } from "../tournament/standings.js";
import {
  isElimination, resultText, stageDetails, stageState, stageTitle, tournamentState, when,
} from "../tournament/words.js";

// The events of GET /v1/tournaments/{id}/events (docs/openapi.yaml), and
// the parts of the page each one changes.
const EVENTS = {
  tournament_changed: ["tournament"],
  registration_changed: ["tournament", "registrations"],
  round_started: ["tournament", "matches", "queue"],
  bracket_advanced: ["tournament", "matches", "bracket", "queue"],
  match_called: ["matches", "queue"],
  result_recorded: ["matches", "bracket", "queue"],
  standings_changed: [],          // the standings, when it is the stage shown (below)
};

startPage();
useToken("organiser");
const id = intParam("id");
const base = `/v1/tournaments/${id}`;

let t = null;                           // the tournament (GET base)
let stageNo = intParam("stage");        // the stage shown; followed while not picked
let stagePicked = stageNo !== null;
let roundNo = intParam("round");
let roundPicked = roundNo !== null;
let stageMatches = [];                  // GET …/matches?stage=N
let standings = null;                   // the shown stage's
let bracket = null;
let queue = null;
let regs = [];
let regsLoaded = false;                 // announce changes, not the first list
let players = [];
let tables = new Map();                 // venue table id → table
const names = new Map();                // player id → name
let stream = null;                      // the tournament's events

function say(text) {
  fill($("#message"), text ? h("p", text) : null);
}

function output(...content) {
  fill($("#organiser-output"), ...content);
}

const stage = () => (t && t.stages.find((s) => s.number === stageNo)) || null;
const tableName = (tid) => (tables.get(tid) ? tables.get(tid).name : String(tid));

// ---- the tournament and its stages --------------------------------------

function drawTournament(data) {
  const before = t;
  t = data;
  document.body.dataset.tournamentState = t.state;
  document.title = `${t.name} — arbiter`;
  fill($("#title"), t.name);
  const cur = t.current ? `stage ${t.current.stage}${t.current.round ? `, round ${t.current.round}` : ""}` : null;
  fill($("#head"), h("span.game-name", t.game), h("span.state", { dataset: { state: t.state } }, tournamentState(t.state)),
    cur ? h("span", cur) : null, h("span", `${t.checked_in} of ${t.registrations} checked in`));
  gameInfo(t.game).then((g) => { const el = $("#head .game-name"); if (el) el.textContent = g.display_name; }, () => {});
  $("#leaderboard-link").href = `leaderboard?game=${encodeURIComponent(t.game)}`;

  if (!stagePicked) stageNo = t.current ? t.current.stage : (t.stages[0] ? t.stages[0].number : null);
  const s = stage();
  const lastRound = s ? s.rounds : 0;
  if (!roundPicked) roundNo = lastRound || null;
  drawStages();
  org.draw(t);
  drawRoundPicker();

  const was = before && { state: before.state, cur: JSON.stringify(before.current), stages: JSON.stringify(before.stages) };
  if (!was || was.cur !== JSON.stringify(t.current) || was.stages !== JSON.stringify(t.stages)) {
    refresh.matches();
    refresh.standings();
    refresh.bracket();
  }
  if (was && was.state !== t.state) {
    announce(`The tournament is now: ${tournamentState(t.state)}.`);
    refresh.registrations();
  }
}

function drawStages() {
  if (!t.stages.length) {
    fill($("#overview-body"), h("p.muted", "No stages yet (POST …/stages, docs/formats/stages.md)."));
    return;
  }
  fill($("#overview-body"),
    h("p.muted", "Choose a stage to see its rounds, bracket and standings."),
    h("ul.plain.stage-list", t.stages.map((s) => h("li",
      h("button.stage-button", {
        type: "button", "aria-pressed": String(s.number === stageNo), dataset: { stage: s.number, state: s.state },
        onclick: () => pickStage(s.number),
      },
      h("strong", stageTitle(s)),
      h("span.stage-meta", ` · ${stageState(s.state)}`,
        s.state !== "pending" ? ` · ${s.entrants} players · ${roundsText(s)}` : "",
        stageDetails(s) ? ` · ${stageDetails(s)}` : ""))))));
}

// "2 of 3 rounds paired", or without the stage's count when its format sets it.
function roundsText(s) {
  const of = s.config && s.config.rounds ? ` of ${s.config.rounds}` : "";
  return `${s.rounds}${of} ${s.rounds === 1 && !of ? "round" : "rounds"} paired`;
}

function pickStage(n) {
  stageNo = n;
  stagePicked = true;
  roundPicked = false;
  roundNo = stage() ? stage().rounds || null : null;
  history.replaceState(history.state, "", addressWith({ stage: n, round: null }));
  drawStages();
  drawRoundPicker();
  fill($("#round-body"));
  fill($("#standings-body"));
  refresh.matches();
  refresh.standings();
  refresh.bracket();
}

// ---- the round ----------------------------------------------------------

function drawRoundPicker() {
  const s = stage();
  const n = s ? s.rounds : 0;
  fill($("#round-heading"), s ? `${stageTitle(s)}${roundNo ? `: round ${roundNo}` : ""}` : "Round");
  fill($("#round-picker"), n > 1 ? [h("span.muted", "Rounds: "), Array.from({ length: n }, (_, i) => i + 1).map((r) => h("button", {
    type: "button", "aria-pressed": String(r === roundNo), dataset: { round: r },
    "aria-label": `Show round ${r}`, onclick: () => pickRound(r),
  }, String(r)))] : null);
}

function pickRound(r) {
  roundNo = r;
  roundPicked = true;
  history.replaceState(history.state, "", addressWith({ stage: stageNo, round: r }));
  drawRoundPicker();
  drawRoundBody();
}

function drawRoundBody() {
  const s = stage();
  if (!s) {
    fill($("#round-body"), h("p.muted", "No stage yet."));
    return;
  }
  if (!roundNo) {
    fill($("#round-body"), h("p.muted", s.state !== "pending" ? "No round paired yet."
      : s.number === 1 ? "Not started: its first round is paired once the tournament is running (“Pair the next round”)."
        : "Not started: it starts from the standings of the stage before it, once that one is over (“Pair the next round”)."));
    return;
  }
  const matches = stageMatches.filter((m) => m.stage === s.number && m.round === roundNo);
  let satOut = null;
  if (!isElimination(s.format) && standings && standings.stage === s.number && matches.length) {
    const seated = new Set(matches.flatMap((m) => m.participants.map((p) => p.player)));
    satOut = standings.rows.filter((r) => !r.dropped && !seated.has(r.player)).map((r) => r.name);
  }
  fill($("#round-body"), drawRound(matches, {
    tableName, tables: [...tables.values()], organiser: org.admin(), onCall: callMatch, satOut,
    labels: new Map((bracket ? bracket.matches : []).map((b) => [b.id, b.label])),
  }));
}

function drawMatches(items) {
  stageMatches = items;
  for (const m of items) for (const p of m.participants) names.set(p.player, p.name);
  drawRoundBody();
  if (bracket) drawBracketBody();
}

// ---- the bracket, the standings, the queue ------------------------------

async function loadBracket() {
  const s = stage();
  if (!s || !isElimination(s.format) || s.state === "pending") return null;
  return api.get(`${base}/bracket?stage=${s.number}`);
}

function drawBracketBody() {
  $("#bracket").hidden = !bracket;
  if (!bracket) {
    fill($("#bracket-body"));
    return;
  }
  fill($("#bracket-heading"), `Bracket: stage ${bracket.stage}`);
  fill($("#bracket-body"), drawBracket(bracket, { stageMatches: new Map(stageMatches.map((m) => [m.id, m])), tableName }));
}

function drawQueueBody() {
  if (queue) fill($("#queue-body"), drawQueue(queue, { tableName }));
}

function drawStandingsBody(st) {
  standings = st;
  if (!st) {
    fill($("#standings-body"), h("p.muted", "No stage yet."));
    return;
  }
  fill($("#standings-heading"), `Standings: stage ${st.stage}`);
  fill($("#standings-body"), drawStandings(st));
  drawRoundBody();
}

function drawRegistrationsBody(items) {
  const old = new Map(regs.map((r) => [r.player, r]));
  regs = items;
  for (const r of regs) names.set(r.player, r.name);
  const draw = () => fill($("#registrations-body"), drawRegistrations(regs, {
    organiser: org.admin(), state: t ? t.state : null, onCheckIn: checkIn, onDrop: drop, redraw: draw,
  }));
  draw();
  drawForms();
  return old;
}

function drawForms() {
  const forms = $("#registration-forms");
  forms.hidden = !org.admin();
  if (!org.admin() || !t) {
    fill(forms);
    return;
  }
  // a form being filled in is not replaced under the organiser's fingers
  if (forms.contains(document.activeElement) && ["INPUT", "SELECT"].includes(document.activeElement.tagName)) return;
  fill(forms, registrationForms({ players, regs, state: t.state, onRegister: register, onNewPlayer: newPlayer }));
}

function drawCorrections(items) {
  $("#corrections").hidden = !items.length;
  fill($("#corrections-body"), h("ol.plain.corrections", items.slice().reverse().map((c) => h("li",
    h("strong", `Stage match ${c.match ?? "(reset)"}`), ` · ${when(c.at)} · ${c.who}: “${c.reason}”`,
    h("div.muted", `was ${resultText(c.before, names) || "—"}; now ${resultText(c.after, names) || "—"}`)))));
}

const failed = (el) => (e) => fill($(el), h("p.muted", e.message));

const refresh = {
  tournament: fetched(() => api.get(base), drawTournament, {
    onError(e) {
      fill($("#main"), notice(`Tournament ${id}: ${e.message}`, h("p", h("a", { href: "tournaments" }, "Every tournament"))));
      if (e.status === 404) {           // nothing to follow: the stream would answer 404 for ever
        stream.stop();
        document.body.dataset.connection = "live";
        fill($("#connection"), "No such tournament");
      }
    },
  }),
  registrations: fetched(() => api.get(`${base}/registrations`).then((r) => r.items), (items) => {
    const old = drawRegistrationsBody(items);
    if (regsLoaded) announceRegistrations(old, items);
    regsLoaded = true;
  }, { onError: failed("#registrations-body") }),
  matches: fetched(() => (stageNo ? api.get(`${base}/matches?stage=${stageNo}`).then((r) => r.items) : Promise.resolve([])),
    drawMatches, { onError: failed("#round-body") }),
  standings: fetched(() => (stageNo ? api.get(`${base}/standings?stage=${stageNo}`) : Promise.resolve(null)),
    drawStandingsBody, { onError: failed("#standings-body") }),
  bracket: fetched(loadBracket, (b) => { bracket = b; drawBracketBody(); drawRoundBody(); }, { onError: failed("#bracket-body") }),
  queue: fetched(() => api.get(`${base}/queue`), (q) => { queue = q; drawQueueBody(); }, { onError: failed("#queue-body") }),
  corrections: fetched(() => api.get(`${base}/corrections`).then((r) => r.items), drawCorrections),
  tables: fetched(() => api.getAll("/v1/tables"), (items) => {
    tables = new Map(items.map((x) => [x.id, x]));
    drawRoundBody();
    drawQueueBody();
    if (bracket) drawBracketBody();
  }),
  players: fetched(() => (org.admin() ? api.getAll("/v1/players") : Promise.resolve([])), (items) => {
    players = items;
    drawForms();
  }),
};

function refreshAll() {
  refresh.tournament();
  refresh.registrations();
  refresh.queue();
  refresh.corrections();
  refresh.tables();
  refresh.players();
  if (t) {
    refresh.matches();
    refresh.standings();
    refresh.bracket();
  }
}

// ---- what happened, in words ---------------------------------------------

function announceRegistrations(old, items) {
  for (const r of items) {
    const o = old.get(r.player);
    if (!o) announce(`${r.name} is registered${r.late ? " (a late entry)" : ""}.`);
    else if (o.status !== r.status) announce(`${r.name} is ${r.status}.`);
    else if (!o.checked_in && r.checked_in) announce(`${r.name} is checked in.`);
  }
}

function describe(name, ev) {
  const who = (m) => m.participants.map((p) => p.name).join(" v ");
  switch (name) {
    case "round_started":
      return `Stage ${ev.stage}, round ${ev.round} is paired: ${ev.matches.length} ${ev.matches.length === 1 ? "table" : "tables"}.`;
    case "bracket_advanced":
      return `Bracket: ${ev.matches.map(who).join("; ")} to play.`;
    case "match_called":
      return `${ev.participants.map((p) => p.name).join(" v ")}: called${ev.table ? ` to table ${tableName(ev.table)}` : ""}.`;
    case "result_recorded":
      return `${ev.correction ? "Corrected result" : "Result"}, stage ${ev.stage} round ${ev.round}: ${resultText(ev.result, names)}.`;
    default:
      return null;
  }
}

// ---- the organiser's actions --------------------------------------------

const org = organiser({
  say,
  onChange() {
    refresh.players();
    if (regs.length || t) drawRegistrationsBody(regs);
    drawRoundBody();
    if (t) org.draw(t);
  },
  onMove: (state) => act(async () => {
    const reply = await api.post(`${base}/state`, { state });
    output(`The tournament is now: ${tournamentState(reply.state)}.`);
    drawTournament(reply);
  }),
  onPair: () => act(async () => {
    const reply = await api.post(`${base}/rounds`);
    output(pairedText(reply));
    refresh.tournament();
    refresh.matches();
  }),
});

// Runs an organiser's action: its failure is the server's own words; a
// refused token is asked for again.
async function act(fn) {
  say("");
  try {
    await fn();
  } catch (e) {
    if (e.status === 401 || e.status === 403) await org.check();
    say(problemText(e));
  }
}

function checkIn(r) {
  return act(async () => {
    await api.post(`${base}/registrations/${r.player}/check-in`);
    output(`${r.name} is checked in.`);
    refresh.registrations();
  });
}

function drop(r) {
  return act(async () => {
    await api.post(`${base}/registrations/${r.player}/drop`);
    output(`${r.name} is dropped: not paired again; the results stay.`);
    refresh.registrations();
  });
}

function register(player, seed, form) {
  return act(async () => {
    const reg = await api.post(`${base}/registrations`, seed ? { player, seed } : { player });
    form.reset();
    output(`${reg.name} is registered${reg.late ? " as a late entry" : ""}.`);
    refresh.registrations();
  });
}

function newPlayer(body, seed, form) {
  return act(async () => {
    const p = await api.post("/v1/players", body);
    form.reset();
    players = [...players, p];
    const reg = await api.post(`${base}/registrations`, seed ? { player: p.id, seed } : { player: p.id });
    output(`${reg.name} is a new player, and registered.`);
    refresh.registrations();
    refresh.players();
  });
}

function callMatch(m, table, form) {
  return act(async () => {
    form.querySelector("button").disabled = true;
    const sm = await api.post(`${base}/matches/${m.id}/call`, table ? { table } : {});
    output(`${m.participants.map((p) => p.name).join(" v ")}: called${sm.table ? ` to table ${tableName(sm.table)}` : ""}, live match ${sm.match}. `,
      h("a", { href: `table?match=${sm.match}` }, "Table display"), " · ",
      h("a", { href: `referee?match=${sm.match}` }, "Referee console"));
    refresh.matches();
    refresh.queue();
  }).finally(() => { if (form.isConnected) form.querySelector("button").disabled = false; });
}

// ---- start ---------------------------------------------------------------

if (!id) {
  fill($("#main"), notice("Which tournament? Open this page as /tournament?id=T.", h("p", h("a", { href: "tournaments" }, "Every tournament"))));
  document.body.dataset.connection = "live";
} else {
  org.check();
  refresh.tournament();                 // also when the stream cannot open (an unknown tournament: 404)
  stream = new LiveStream(`${base}/events`, Object.keys(EVENTS), {
    open: refreshAll,
    reset: refreshAll,
    event(name, ev) {
      if (!ev) return;
      for (const part of EVENTS[name]) refresh[part]();
      if (name === "standings_changed" && ev.stage === stageNo) refresh.standings();
      if (name === "result_recorded" && ev.correction) refresh.corrections();
      const text = describe(name, ev);
      if (text) announce(text);
    },
  }).start();
}
