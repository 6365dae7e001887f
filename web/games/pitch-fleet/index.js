// web/games/pitch-fleet/index.js — Pitch Fleet's look: the table display,
// the scoreboard tile, the referee console's turn as a conversation, and
// its events in words (docs/web.md, "Game modules"; the inputs, view and
// events are docs/games/pitch-fleet.md, the boards and cards
// docs/games/pitch-fleet-data.md).
//
// Everything drawn comes from the view the page was given.  The referee's
// turn sends nothing itself: each step (pick, shot, restart, charge,
// end_turn, foul, attempt) goes through ctx.propose, which previews it
// rule by rule and sends it when the referee confirms.  What the referee
// has chosen but not yet sent (the card, the ship, the report drawn on
// the picture) is kept here until the turn moves on.
import { h, fill } from "../../js/lib/dom.js";
import { list } from "../../js/lib/format.js";
import { boardFigure, locationText, locations, planetText, shipText } from "./board.js";

export const stylesheet = new URL("./pitch-fleet.css", import.meta.url).href;

// The score terms (GET /v1/games/pitch-fleet terms) in words.
const TERMS = [
  ["start_token", "3 VP token"], ["outbound", "Outbound"], ["locations", "Locations"], ["cards", "Power cards"],
  ["charging_kept", "Kept cards"], ["team_bonus", "Team bonus"], ["challenges", "Challenges"], ["floor", "Floor"],
];

// The rules a change names, in words (the engine's rule texts, for the
// score_changed events, which carry only the rule's name).
const RULE_WORDS = {
  start_token: "the 3 VP token of the set-up",
  own_outbound: "a ship of their team went out (outbound rule 1)",
  opponent_outbound: "their ship went out (outbound rule 2)",
  knocked_out: "an opponent's ship went out (outbound rule 2)",
  vp_satellite: "a VP satellite of the goal's board",
  charging_kept: "every second kept card is 1 VP",
  asteroid_belt: "the asteroid belt of the goal's board",
  team_bonus: "the 3 VP token: all of the team's record tokens on the goal",
  card_B1: "B1, an asteroid belt gains 1", card_B2: "B2, a knocked ship landed on a planet",
  card_B3: "B3, a VP satellite loses its stars", card_B7: "B7, a charging satellite",
  card_A1: "A1, the second joint reached a planet", card_A2: "A2, two special locations",
  card_A3: "A3, an opponent's ship knocked by the beam", card_A4: "A4, another ship went out",
  card_A5: "A5, the springboard reached a planet",
  floor: "a score never falls below zero",
  solo_challenge: "the challenge completed", solo_failure: "a failed attempt: 1 VP off the card",
};

const RESULT_WORDS = { success: "✓ completed", failure: "✗ failed", discarded: "✗ discarded" };

// The locations of the last layout seen, for words where only ids come
// (events).  Every layout holds every location: only its place differs.
let knownLocs = new Map();

const points = (n) => (n > 0 ? `+${n}` : n < 0 ? `−${-n}` : "0");
const seatsOf = (view) => (view && view.seats) || [];
const seatEntry = (view, seat) => seatsOf(view).find((s) => s.seat === seat) || null;
const names = (ctx, seats) => list((seats || []).map((s) => ctx.playerName(s)));
const isSolo = (view) => view && view.mode === "solo";
const finished = (view) => view && (view.phase === "finished" || view.status === "finished");
const paused = (view, match) => (view && view.status === "paused") || (match && match.state === "paused");

// A power card in words: "Solar Charger (B7, ring or little finger): Gain 1 VP …".
export function cardText(card) {
  if (!card || typeof card !== "object") return "no card";
  if (!card.name) return `card ${card.handle}`;
  return `${card.name} (${card.code}, ${card.fingers}): ${card.effect}`;
}

function cardEl(card, tag = "div") {
  if (!card) return h(`${tag}.pf-card.pf-card-none`, "No card face up");
  return h(`${tag}.pf-card.pf-${card.kind || "basic"}`, { dataset: { handle: card.handle, code: card.code || "" } },
    h("span.pf-card-head", h("span.pf-code", card.code), " ", h("strong.pf-card-name", card.name)),
    h("span.pf-fingers", `Shoot with: ${card.fingers}`),
    h("span.pf-effect", card.effect));
}

function winners(view, match) {
  const r = match && match.result;
  if (r && r.placements) return r.placements.filter((p) => p.place === 1).map((p) => p.seat);
  if (!seatsOf(view).length) return [];
  const best = Math.max(...seatsOf(view).map((s) => s.score));
  return seatsOf(view).filter((s) => s.score === best).map((s) => s.seat);
}

// ---- the state in one line ----------------------------------------------------

function stateLine(view, match, ctx) {
  if (isSolo(view)) {
    if (finished(view)) return `Solo over: ${view.total} VP — ${view.evaluation || ""}`;
    if (paused(view, match)) return "Paused by the referee";
    if (view.phase === "ready") return "Solo: waiting for the start";
    const done = (view.challenges_done || []).length;
    return `Solo: challenge ${view.challenge ? view.challenge.number : "—"} (card ${done + 1} of ${done + view.challenges_left}) — ${view.total} VP so far`;
  }
  if (finished(view)) {
    const w = winners(view, match);
    if (!w.length) return "Game over";
    return w.length === 1 ? `Game over: ${ctx.playerName(w[0])} wins!` : `Game over: ${names(ctx, w)} share the victory!`;
  }
  const where = `Stage ${view.stage} of ${view.stages}, round ${view.round} of 3`;
  if (paused(view, match)) return `${where}: paused by the referee`;
  if (view.phase === "ready") return `${where}: waiting for the start`;
  const who = view.current_seat ? `${ctx.playerName(view.current_seat)}'s turn` : "";
  return `${where}: ${who}`;
}

function turnLine(view, ctx) {
  const t = view.turn;
  if (!t || !view.current_seat) return null;
  const who = ctx.playerName(t.seat);
  const parts = [];
  if (t.card && t.ship) parts.push(`${who} moves ${shipText(t.ship)} with ${t.card.name} (${t.card.code})`);
  else if (t.card) parts.push(`${who} must use the drawn card, ${t.card.name} (${t.card.code})`);
  else parts.push(`${who} picks a face-up power card and a ship`);
  if (view.phase === "shot") parts.push("the shot is being played");
  if (view.phase === "decide") parts.push("the referee checks the shot");
  if (view.phase === "charge") parts.push("a charging satellite: use the drawn card or keep it");
  return h("p.pf-turn-line", { dataset: { phase: view.phase } }, parts.join(" — ") + ".");
}

// ---- the players ----------------------------------------------------------------

function recordOnGoal(view, ship) {
  const r = (view.records || []).find((x) => x.ship === ship);
  return r ? r.on_goal : false;
}

function playersEl(view, match, ctx, { compact = false } = {}) {
  const solo = isSolo(view);
  const w = finished(view) ? winners(view, match) : [];
  const cols = solo ? ["Player", "VP"] : compact ? ["Player", "Team", "VP", "Record"]
    : ["Player", "Ship", "VP", "Record token", "Restart card", "Kept cards", "Score terms"];
  return h("table.pf-players", h("caption", solo ? "Player" : "Players"),
    h("thead", h("tr", cols.map((c) => h("th", { scope: "col" }, c)))),
    h("tbody", seatsOf(view).map((p) => {
      const current = view.current_seat === p.seat;
      return h("tr", { dataset: { seat: p.seat, team: p.team || "" }, class: [current && "is-current", w.includes(p.seat) && "is-winner"].filter(Boolean).join(" ") },
        h("th", { scope: "row" }, current ? h("span.pf-now", "▶ ") : null, ctx.playerName(p.seat), w.includes(p.seat) ? h("span.pf-win", " ★ winner") : null),
        !solo && h("td.pf-team", { dataset: { team: p.team } }, compact ? (p.team === "red" ? "Red" : "Blue") : shipText(p.ship)),
        h("td.pf-vp", { dataset: { value: p.score } }, String(p.score)),
        !solo && h("td.pf-record", recordOnGoal(view, p.ship) ? "✓ on the goal" : "not yet"),
        !solo && !compact && h("td", p.restart_card ? "✓ has one" : "—"),
        !solo && !compact && h("td", String(p.kept)),
        !solo && !compact && h("td.pf-terms", TERMS.filter(([k]) => p.terms && p.terms[k]).map(([k, n]) => `${n} ${points(p.terms[k])}`).join(", ") || "—"));
    })));
}

function teamsEl(view, ctx) {
  if (isSolo(view)) return null;
  const team = (t) => seatsOf(view).filter((p) => p.team === t).map((p) => p.seat);
  return h("p.pf-teams", h("span.pf-team-name", { dataset: { team: "red" } }, "Red team: "), names(ctx, team("red")) || "—",
    " · ", h("span.pf-team-name", { dataset: { team: "blue" } }, "Blue team: "), names(ctx, team("blue")) || "—",
    ` · starting player: ${view.starting_seat ? ctx.playerName(view.starting_seat) : "—"}`);
}

function tokensEl(view) {
  if (isSolo(view)) return null;
  const on = (view.records || []).filter((r) => r.on_goal).map((r) => shipText(r.ship));
  return h("p.pf-tokens", `Record tokens on the goal (${planetText(view.goal_planet)}): ${on.length ? list(on) : "none yet"}. `,
    view.bonus_token ? "The 3 VP token is on the goal." : "The 3 VP token is gone this stage.",
    ` Power deck: ${view.deck_left} left, ${view.discards} discarded.`);
}

// The face-up power cards, one per pile, with their effects in words.
function pilesEl(view, ctx) {
  if (isSolo(view)) return null;
  return h("section.pf-piles", { "aria-label": "Face-up power cards" },
    h("h3", "Face-up power cards"),
    h("ul.pf-pile-list", (view.piles || []).map((p) => h("li", { dataset: { seat: p.seat } },
      h("p.pf-pile-owner", `${ctx.playerName(p.seat)}'s pile (${p.left} left)`),
      cardEl(p.top)))));
}

// A list of score changes, each with its rule in words.
function changesEl(changes, ctx, cls) {
  return h(`ol.pf-changes${cls ? `.${cls}` : ""}`, changes.map((c) => h("li", { dataset: { seat: c.seat, rule: c.rule, delta: c.delta } },
    h("strong", `${ctx.playerName(c.seat)} ${points(c.delta)} VP`), `: ${c.why || RULE_WORDS[c.rule] || c.rule}`,
    c.ship || c.location ? ` (${[c.ship && shipText(c.ship), c.location && locationText(c.location, knownLocs)].filter(Boolean).join(", at ")})` : "")));
}

function lastTurnEl(view, ctx) {
  const last = view.last_turn || [];
  return h("section.pf-last", { "aria-label": "The last turn" },
    h("h3", "The last turn, explained"),
    last.length ? changesEl(last, ctx) : h("p.muted", "No score has changed yet."));
}

function pendingEl(view, ctx) {
  const t = view.turn;
  if (!t || !["decide", "charge"].includes(view.phase)) return null;
  return h("section.pf-pending", { "aria-label": "Pending changes" },
    h("h3", "The shot's changes, waiting for the end of the turn"),
    t.pending.length ? changesEl(t.pending, ctx) : h("p", "No score changes."),
    t.record_due ? h("p", `${shipText(t.ship)}'s record token goes to the goal.`) : null);
}

// ---- solo --------------------------------------------------------------------------

function challengeEl(view) {
  const c = view.challenge;
  if (!c) return null;
  return h("section.pf-challenge", { "aria-label": "The challenge", dataset: { number: c.number } },
    h("h3", `Challenge ${c.number}`),
    h("dl",
      h("dt", "Set-up"), h("dd.pf-setup", c.setup),
      h("dt", "Challenge"), h("dd.pf-goal", c.goal),
      h("dt", "VP on the card"), h("dd.pf-vp-left", `${c.vp_left} of ${c.vp}`),
      h("dt", "Moves"), h("dd", `at most ${c.moves_left}`),
      h("dt", "Shoot with"), h("dd", c.fingers),
      c.card ? [h("dt", "Power card"), h("dd", c.card)] : null));
}

function soloDoneEl(view) {
  const done = view.challenges_done || [];
  return h("section.pf-solo-done", { "aria-label": "Challenges done" },
    h("h3", `Challenges done (${done.length}; ${view.challenges_left} left)`),
    done.length ? h("table.pf-done", h("thead", h("tr", ["Card", "Result", "VP"].map((c) => h("th", { scope: "col" }, c)))),
      h("tbody", done.map((d) => h("tr", { dataset: { number: d.number, result: d.result } },
        h("td", String(d.number)), h("td", RESULT_WORDS[d.result] || d.result), h("td", String(d.vp))))))
      : h("p.muted", "None yet."),
    h("p.pf-total", `Total: ${view.total} VP`),
    view.evaluation ? h("p.pf-evaluation", { dataset: { evaluation: view.evaluation } }, `Evaluation: ${view.evaluation}`) : null);
}

// ---- the table display -----------------------------------------------------------------

function remember(view) {
  if (view && view.layout) knownLocs = locations(view);
}

export function table(root, ctx) {
  root.classList.add("pf-table");
  return {
    update(view, match) {
      if (!view) return;
      remember(view);
      if (isSolo(view)) {
        fill(root, h("p.pf-state", { dataset: { phase: view.phase } }, stateLine(view, match, ctx)),
          h("div.pf-main", h("div.pf-left", challengeEl(view), soloDoneEl(view), lastTurnEl(view, ctx)),
            h("div.pf-right", boardFigure(view, { size: "big" }))));
        return;
      }
      fill(root,
        h("p.pf-state", { dataset: { phase: view.phase } }, stateLine(view, match, ctx)),
        turnLine(view, ctx),
        h("div.pf-main",
          h("div.pf-left", teamsEl(view, ctx), playersEl(view, match, ctx), tokensEl(view), pendingEl(view, ctx), lastTurnEl(view, ctx)),
          h("div.pf-right", boardFigure(view, { size: "big" }))),
        pilesEl(view, ctx));
    },
  };
}

// The station: the same as the table (Pitch Fleet has no hidden hand but a
// drawn card, which the seat's view holds while it waits).
export function station(root, ctx) {
  const t = table(root, ctx);
  return {
    update(view, match) {
      t.update(view, match);
      if (view && view.you && view.you.drawn) root.prepend(h("section.pf-drawn", { "aria-label": "Your drawn card" },
        h("h3", "You drew at a charging satellite: use it now or keep it"), cardEl(view.you.drawn)));
    },
  };
}

// ---- the scoreboard tile ---------------------------------------------------------------------

export function tile(root, ctx) {
  root.classList.add("pf-tile");
  return {
    update(view, match) {
      if (!view) return;
      remember(view);
      if (isSolo(view)) {
        const c = view.challenge;
        fill(root, h("p.pf-state", stateLine(view, match, ctx)),
          c ? h("p.pf-tile-challenge", `Challenge ${c.number} (${c.vp_left} of ${c.vp} VP): ${c.goal}`) : null,
          view.evaluation ? h("p.pf-evaluation", `Evaluation: ${view.evaluation}`) : null);
        return;
      }
      const last = view.last_turn || [];
      fill(root,
        h("p.pf-state", stateLine(view, match, ctx)),
        teamsEl(view, ctx),
        playersEl(view, match, ctx, { compact: true }),
        h("p.pf-tokens", view.bonus_token ? "3 VP token on the goal" : "3 VP token gone",
          ` · to ${planetText(view.goal_planet)}`),
        h("p.pf-tile-cards", "Face up: ", (view.piles || []).filter((p) => p.top).map((p, i) => [i ? "; " : "",
          h("span.pf-tile-card", { title: p.top.effect }, `${p.top.name} (${p.top.code}): ${p.top.effect}`)])),
        last.length ? h("div.pf-tile-last", h("p.pf-tile-last-head", "Last turn:"), changesEl(last, ctx)) : null);
    },
  };
}

// ---- the referee's turn ------------------------------------------------------------------------

export const refereeHandles = ["pick", "shot", "restart", "charge", "end_turn", "foul", "attempt"];

// Which pre-move each card needs at pick (docs/games/pitch-fleet.md).
const NEEDS = {
  B4: { beam_at: "required" }, B6: { relocate_to: "planet" }, B10: { relocate_to: "optional" },
};

function locationOptions(ids, locs, current, placeholder) {
  return [placeholder && h("option", { value: "" }, placeholder),
    ids.map((id) => h("option", { value: id, selected: id === current }, locationText(id, locs)))];
}

export function refereeSteps(root, ctx) {
  root.classList.add("pf-referee");
  const head = h("div.pf-ref-head");
  const body = h("div.pf-ref-body");
  fill(root, h("h3", "Pitch Fleet: the turn"), head, body);
  let view = null, match = null;
  let turnKey = "";
  let drawnKey = "";
  let pick = {};
  let report = null;
  let refocus = null;           // the picture's element to focus after a redraw

  const freshReport = () => ({ moved: "in", at: new Set(), marks: new Map(), target: null, collided: false, beams: 0, springboard: false });

  function draw() {
    if (!view) return fill(body);
    const locs = locations(view);
    if (isSolo(view)) return fill(body, soloStep(view));
    if (finished(view)) return fill(body, h("p", "The game is over."));
    if (view.phase === "ready") return fill(body, h("p", "Start the match with the Start button above: the set-up is announced and the first turn begins."));
    if (paused(view, match)) return fill(body, h("p", "Paused: resume the match to go on."));
    switch (view.phase) {
      case "pick": return fill(body, pickStep(view, locs));
      case "shot": {
        fill(body, shotStep(view, locs));
        // a tap redraws the picture: the tapped element keeps the focus
        const again = refocus && body.querySelector(refocus);
        refocus = null;
        if (again) again.focus();
        return body;
      }
      case "decide": case "charge": return fill(body, decideStep(view));
      default: return fill(body);
    }
  }

  // ---- 1. the card and the ship
  function pickStep(v, locs) {
    const t = v.turn || {};
    const me = seatEntry(v, v.current_seat);
    const forced = t.card || null;
    const cards = forced ? [forced] : (v.piles || []).map((p) => p.top).filter(Boolean);
    if (!cards.some((c) => c.handle === pick.card)) pick.card = cards.length === 1 ? cards[0].handle : null;
    const ships = (v.ships || []).filter((s) => me && s.team === me.team);
    if (!ships.some((s) => s.ship === pick.ship)) pick.ship = me && ships.some((s) => s.ship === me.ship) ? me.ship : null;
    const card = cards.find((c) => c.handle === pick.card) || null;
    const ship = ships.find((s) => s.ship === pick.ship) || null;
    const need = (card && NEEDS[card.code]) || {};
    const allIds = [...locs.keys()];
    const startBoard = allIds.filter((id) => locs.get(id).planet === v.start_planet);
    const planets = allIds.filter((id) => locs.get(id).kind === "planet" && id !== v.goal_planet);
    const fields = [];
    if (ship && !ship.on_board) {
      const sel = h("select", { name: "start_at", onchange: (e) => { pick.start_at = e.target.value || undefined; } },
        locationOptions(startBoard, locs, pick.start_at, `${planetText(v.start_planet)} (the starting planet)`));
      fields.push(h("label", `${shipText(ship.ship)} is off the board: put it on`, sel));
    } else pick.start_at = undefined;
    if (need.relocate_to) {
      const ids = need.relocate_to === "planet" ? planets : allIds;
      const sel = h("select", { name: "relocate_to", required: need.relocate_to === "planet", onchange: (e) => { pick.relocate_to = e.target.value || undefined; } },
        locationOptions(ids, locs, pick.relocate_to, need.relocate_to === "planet" ? "— choose a planet —" : "— where the shift took it (optional) —"));
      fields.push(h("label", need.relocate_to === "planet" ? `${card.name}: before moving, put the ship on` : `${card.name}: the ship shifted to`, sel));
    } else pick.relocate_to = undefined;
    if (need.beam_at) {
      const sel = h("select", { name: "beam_at", onchange: (e) => { pick.beam_at = e.target.value || undefined; } },
        locationOptions(["none", ...allIds], locs, pick.beam_at, "— where the beam is placed —"));
      fields.push(h("label", `${card.name}: the magnetic beam placed at`, sel));
    } else pick.beam_at = undefined;
    const go = h("button.big.primary.pf-preview-pick", { type: "button", disabled: !card || !ship, onclick: () => {
      const body = { kind: "pick", card: pick.card, ship: pick.ship };
      for (const k of ["start_at", "relocate_to", "beam_at"]) if (pick[k]) body[k] = pick[k];
      ctx.propose(body);
    } }, "Preview the pick");
    return [
      h("p.pf-step", h("strong", `1. ${ctx.playerName(v.current_seat)}: `), forced ? "the drawn card, used at once — choose the ship." : "choose a face-up power card and a ship."),
      h("div.pf-choose-cards", { role: "group", "aria-label": "Face-up power cards" }, cards.map((c) => {
        const pile = (v.piles || []).find((p) => p.top && p.top.handle === c.handle);
        return h("button.pf-card-button", { type: "button", "aria-pressed": String(c.handle === pick.card), dataset: { handle: c.handle, code: c.code },
          onclick: () => { pick.card = c.handle; draw(); } },
        cardEl(c, "span"), pile ? h("span.pf-pile-of", `${ctx.playerName(pile.seat)}'s pile`) : h("span.pf-pile-of", "the drawn card"));
      })),
      h("div.pf-choose-ships", { role: "group", "aria-label": "Ships of the team" }, h("span", "Ship: "), ships.map((s) => h("button.pf-ship-button",
        { type: "button", "aria-pressed": String(s.ship === pick.ship), dataset: { ship: s.ship, team: s.team }, onclick: () => { pick.ship = s.ship; draw(); } },
        `${shipText(s.ship)} (${ctx.playerName(s.owner_seat)}'s${s.on_board ? "" : ", off the board"})`))),
      fields.length ? h("div.pf-premove", fields) : null,
      h("p", go),
      h("p", foulButton(v, "pick")),
    ];
  }

  // ---- 2. the shot, on the picture
  function shotStep(v, locs) {
    const t = v.turn;
    const moved = t.ship;
    const r = report;
    const card = t.card || {};
    const onLocation = (id) => {
      refocus = `.pf-report-picture .pf-loc[data-loc="${id}"]`;
      if (r.target && r.marks.has(r.target)) {
        const m = r.marks.get(r.target);
        m.state = "knocked";
        m.at = id;
        r.target = null;
      } else if (r.moved === "in") {
        if (r.at.has(id)) r.at.delete(id);
        else if (r.at.size < 4) r.at.add(id);
      }
      draw();
    };
    const onShip = (ship) => {
      refocus = `.pf-report-picture [data-ship="${ship}"].pf-tappable, .pf-report-picture button[data-ship="${ship}"]`;
      if (ship === moved) { r.target = null; draw(); return; }
      const m = r.marks.get(ship);
      if (!m) { r.marks.set(ship, { state: "knocked", at: "none" }); r.target = ship; }
      else if (m.state === "knocked") { m.state = "out"; m.at = "none"; r.target = null; }
      else { r.marks.delete(ship); r.target = null; }
      draw();
    };
    const marked = new Map([...r.marks].map(([s, m]) => [s, m.state === "out" ? "knocked out" : `knocked to ${locationText(m.at, locs)}`]));
    if (moved) marked.set(moved, "the moved ship");
    const picture = boardFigure(v, { pick: { onLocation, onShip, selected: r.moved === "in" ? r.at : new Set(), marked, target: r.target } });
    const knocked = r.marks.size > 0;
    const radio = (value, text) => h("label.inline", h("input", { type: "radio", name: "pf-moved", value, checked: r.moved === value,
      onchange: () => { r.moved = value; if (value !== "in") r.at.clear(); draw(); } }), text);
    const others = (v.ships || []).filter((s) => s.on_board && s.ship !== moved);
    const otherRow = (s) => {
      const m = r.marks.get(s.ship);
      const sel = h("select", { "aria-label": `What happened to ${shipText(s.ship)}`, dataset: { ship: s.ship },
        onchange: (e) => {
          if (e.target.value === "") r.marks.delete(s.ship);
          else r.marks.set(s.ship, { state: e.target.value, at: e.target.value === "out" ? "none" : (m && m.at) || "none" });
          r.target = e.target.value === "knocked" ? s.ship : null;
          draw();
        } },
      h("option", { value: "", selected: !m }, "not knocked"),
      h("option", { value: "knocked", selected: m && m.state === "knocked" }, "knocked, still on the board"),
      h("option", { value: "out", selected: m && m.state === "out" }, "knocked out (outbound)"));
      return h("li.pf-other", { dataset: { ship: s.ship, state: m ? m.state : "" } }, h("strong", shipText(s.ship)), " ", sel,
        m && m.state === "knocked" ? [" ended at ", h("em.pf-ended", locationText(m.at, locs)), " ",
          h("button", { type: "button", "aria-pressed": String(r.target === s.ship), onclick: () => { r.target = r.target === s.ship ? null : s.ship; draw(); } },
            r.target === s.ship ? "Tap its place on the picture…" : "Set its place")] : null);
    };
    const beams = h("input", { type: "number", min: 0, max: v.beams_on_board, step: 1, value: r.beams, name: "beams_knocked",
      onchange: (e) => { r.beams = Math.max(0, Number(e.target.value) || 0); draw(); } });
    const collided = h("input", { type: "checkbox", name: "collided", checked: r.collided || knocked || r.beams > 0, disabled: knocked || r.beams > 0,
      onchange: (e) => { r.collided = e.target.checked; draw(); } });
    // The report as the shot input takes it; empty lists and false or 0
    // left out (the engine's defaults), open space as ["none"].
    const body = () => {
      const outbound = [];
      if (r.moved === "out") outbound.push(moved);
      const kn = [...r.marks.keys()];
      for (const s of kn) if (r.marks.get(s).state === "out") outbound.push(s);
      const b = { kind: "shot" };
      if (outbound.length) b.outbound = outbound;
      if (r.moved === "stacked") b.stacked = true;
      if (r.moved === "in") b.at = r.at.size ? [...r.at] : ["none"];
      if (kn.length) {
        b.knocked = kn;
        b.knocked_at = kn.map((s) => (r.marks.get(s).state === "out" ? "none" : r.marks.get(s).at || "none"));
      }
      if (r.collided || knocked || r.beams > 0) b.collided = true;
      if (r.beams > 0) b.beams_knocked = r.beams;
      if (r.springboard) b.springboard_failed = true;
      return b;
    };
    return [
      h("p.pf-step", h("strong", `2. The shot: `), `${ctx.playerName(t.seat)} moves ${shipText(moved)} with ${card.name} (${card.code}). `,
        "Report where it came to rest."),
      h("div.pf-report",
        h("div.pf-report-picture", picture),
        h("div.pf-report-form",
          h("fieldset", h("legend", `${shipText(moved)}, the moved ship`),
            radio("in", "stayed on the board"), radio("out", "went out (outbound)"), radio("stacked", "came to rest on another object (outbound)")),
          h("div.pf-at", { "aria-live": "polite" }, r.moved === "in"
            ? [h("p", h("strong", "It touches now: "), r.at.size ? list([...r.at].map((id) => locationText(id, locs))) : "open space (no location)"),
              h("p.muted", r.target ? `Tap the place where ${shipText(r.target)} ended.` : "Tap each location it touches on the picture (again to take it back); tap a ship it knocked.")]
            : h("p", "It went out: no location counts.")),
          others.length ? h("fieldset", h("legend", "Other ships on the board"), h("ul.plain", others.map(otherRow))) : null,
          h("label.inline", collided, "It touched another ship or a beam (collided)"),
          v.beams_on_board ? h("label", `Beams knocked (of ${v.beams_on_board})`, beams) : null,
          card.code === "A5" ? h("label.inline", h("input", { type: "checkbox", name: "springboard_failed", checked: r.springboard,
            onchange: (e) => { r.springboard = e.target.checked; draw(); } }), "It stayed on the springboard: the move failed") : null,
          h("p", h("button.big.primary.pf-preview-shot", { type: "button", onclick: () => ctx.propose(body()) }, "Preview the shot"),
            " ", h("button", { type: "button", onclick: () => { report = freshReport(); draw(); } }, "Clear the report")),
          h("p", foulButton(v, "shot")))),
    ];
  }

  // ---- 3. restart, end the turn, foul; a charging draw's use or keep
  function decideStep(v) {
    const t = v.turn;
    const drawn = v.referee && v.referee.drawn;
    const charge = v.phase === "charge";
    return [
      h("p.pf-step", h("strong", "3. The shot's changes, rule by rule: "), "score them, restart, or call a foul."),
      pendingEl(v, ctx),
      charge ? h("section.pf-charge", { "aria-label": "Charging draw" },
        h("h4", `${ctx.playerName(t.seat)} drew a power card at a charging satellite:`),
        drawn ? cardEl(drawn) : h("p", "The drawn card."),
        h("p", h("button.big.primary.pf-use", { type: "button", onclick: () => ctx.propose({ kind: "charge", choice: "use" }) }, "Use it now (an extra attempt)"),
          " ", h("button.big.pf-keep", { type: "button", onclick: () => ctx.propose({ kind: "charge", choice: "keep" }) }, "Keep it face down"))) : null,
      h("p.pf-decide",
        h("button.big.primary.pf-end-turn", { type: "button", disabled: charge, onclick: () => ctx.propose({ kind: "end_turn" }) }, "End the turn (score it)"),
        " ", h("button.big.pf-restart", { type: "button", disabled: !t.may_restart, onclick: () => ctx.propose({ kind: "restart" }) },
          t.may_restart ? "Use the restart card" : "Restart card: not possible"),
        " ", foulButton(v, "decide")),
    ];
  }

  function foulButton(v, step) {
    return h("button.danger.pf-foul", { type: "button", disabled: step === "pick", onclick: () => ctx.propose({ kind: "foul" }),
      title: "Touching another ship when placing, pushing, leaving one's place: the attempt is void, the card spent" },
    step === "pick" ? "Foul (after the pick)" : "Foul: void the attempt");
  }

  // ---- solo: the attempt's result
  function soloStep(v) {
    if (finished(v)) return [soloDoneEl(v)];
    if (v.phase === "ready") return h("p", "Start the match with the Start button above: the first challenge turns up.");
    const c = v.challenge;
    if (!c) return null;
    const moves = h("select", { name: "moves", "aria-label": "Moves it took" },
      Array.from({ length: c.moves_left }, (_, i) => h("option", { value: i + 1 }, String(i + 1))));
    return [
      challengeEl(v),
      h("p.pf-solo-buttons",
        h("label", "Moves it took", moves), " ",
        h("button.big.primary.pf-success", { type: "button", onclick: () => ctx.propose({ kind: "attempt", result: "success", moves: Number(moves.value) }) }, "Success"),
        " ", h("button.big.pf-failure", { type: "button", onclick: () => ctx.propose({ kind: "attempt", result: "failure", moves: c.moves_left }) }, "Failure (1 VP off the card)")),
    ];
  }

  return {
    update(v, m) {
      view = v;
      match = m;
      if (!v) return;
      remember(v);
      fill(head, h("p.pf-state", stateLine(v, m, ctx)), turnLine(v, ctx));
      // The referee's choices stay until the turn moves on; a redraw
      // happens only when what is drawn changed, so that a control under
      // the pointer is not replaced.
      const t = v.turn;
      const key = JSON.stringify([v.phase, v.status, m && m.state, v.current_seat, t && t.card && t.card.handle, t && t.ship,
        (v.piles || []).map((p) => p.top && p.top.handle), (v.ships || []).map((s) => [s.ship, s.on_board, s.at]),
        t && t.pending, t && t.may_restart, v.referee && v.referee.drawn && v.referee.drawn.handle, v.challenge, v.challenges_done]);
      if (key === drawnKey) return;
      drawnKey = key;
      const tk = JSON.stringify([v.stage, v.round, v.current_seat, v.phase === "pick" ? "pick" : "turn", t && t.card && t.card.handle, t && t.ship]);
      if (tk !== turnKey) {
        turnKey = tk;
        if (v.phase === "pick") pick = {};
        report = freshReport();
      }
      if (v.phase !== "shot") report = freshReport();
      draw();
    },
  };
}

// ---- events in words ---------------------------------------------------------------------------

export function describe(ev, ctx) {
  const who = ev.seat ? ctx.playerName(ev.seat) : "";
  const loc = (id) => locationText(id, knownLocs);
  switch (ev.kind) {
    case "stage_started":
      return `Stage ${ev.stage}: from ${planetText(ev.start_planet)} to ${planetText(ev.goal_planet)}; ${ctx.playerName(ev.starting_seat)} starts.`;
    case "teams_dealt":
      return `Teams: red ${names(ctx, ev.red_seats)}; blue ${names(ctx, ev.blue_seats)}.`;
    case "turn_started":
      return `${who}'s turn (stage ${ev.stage}, round ${ev.round}).`;
    case "card_picked":
      return `${who} takes ${ev.card && ev.card.name ? `${ev.card.name} (${ev.card.code})` : "a card"} and moves ${shipText(ev.ship)}.`;
    case "shot_reported": {
      const parts = [];
      if ((ev.outbound || []).length) parts.push(`out: ${list(ev.outbound.map(shipText))}`);
      const at = (ev.at || []).filter((x) => x !== "none");
      parts.push(at.length ? `the ship touches ${list(at.map(loc))}` : (ev.outbound || []).length ? null : "the ship rests in open space");
      if ((ev.knocked || []).length) parts.push(`knocked: ${list(ev.knocked.map(shipText))}`);
      return `The shot: ${parts.filter(Boolean).join("; ")}.`;
    }
    case "score_changed":
      return `${who} ${points(ev.delta)} VP: ${RULE_WORDS[ev.rule] || String(ev.rule).replace(/_/g, " ")}` +
        (ev.location ? ` (${loc(ev.location)})` : ev.ship ? ` (${shipText(ev.ship)})` : "") + ".";
    case "record_moved":
      return `${shipText(ev.ship)}'s record token moves to the goal planet.`;
    case "team_bonus":
      return ev.awarded ? `The ${ev.team} team has every record token on the goal: 3 VP each.` : "The 3 VP token is removed: nobody gains it.";
    case "challenge_done":
      return `Challenge ${ev.number}: ${RESULT_WORDS[ev.result] || ev.result}, ${ev.vp} VP.`;
    default:
      return null;
  }
}
