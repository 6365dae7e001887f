// web/games/crazy-pilot/index.js — Crazy Pilot's look: a seat's station,
// the table display, the scoreboard tile and the referee's quick controls
// (docs/web.md, "Game modules"; the view and events are
// docs/games/crazy-pilot.md).
//
// Everything drawn comes from the view the page was given: a station's
// own seat view (its face-up card, `you`), the public view on displays.
// The public view holds no face and no answer before scoring; a station's
// holds only its own seat's face (and, with two players, the faces of the
// cards in front of it).  The answers appear once the match is scored
// (`answers`, `scores`).  Events only add a sentence and a short flash: a
// "Zombieeees!" or a "Driiiiive!" flashes for CZ_FLASH_MS at most.  The
// one input a station sends is the two-player `cover`, through the page's
// ctx.send.
import { h, fill } from "../../js/lib/dom.js";
import { list, ordinal, seconds } from "../../js/lib/format.js";
import { cardFigure, sceneText } from "./scene.js";

export const stylesheet = new URL("./crazy-pilot.css", import.meta.url).href;
export { sceneText as cardText };

const CZ_FLASH_MS = 1500;

// The stacks around a player's car, as the view names them.
const STACKS = ["straight", "left", "right", "u_turn", "hand", "under_car", "set_aside"];
const STACK_WORDS = {
  straight: "Straight on", left: "Left", right: "Right", u_turn: "U-turn", hand: "Hand (under the pile)",
  under_car: "Under the car (zombies)", set_aside: "Set aside", front: "In front (sent by the opponent)",
};
const STACK_SHORT = { straight: "↑", left: "←", right: "→", u_turn: "↶", hand: "■", under_car: "Z", set_aside: "✗" };
const PLACEMENT_WORDS = {
  straight: "straight on", left: "left", right: "right", u_turn: "U-turn", hand: "hand (under the pile)",
  under_car: "under the car", set_aside: "set aside", front: "in front of the opponent",
};
// The icon on a card's back (shown only once the match is scored).
const ANSWER_WORDS = {
  straight: "↑ straight", left: "← left", right: "→ right", u_turn: "↶ U-turn", hand: "■ hand",
  zombie: "Z zombie", fork_left: "↖ left or straight", fork_right: "↗ right or straight",
};
// The score terms (GET /v1/games/crazy-pilot terms), in the rulebook's
// order; each is points (a wrong card −1), the worth says per what.
const TERMS = [
  ["correct", "Correct", "+1 each"], ["finish", "Finish card", "+2"], ["wrong", "Wrong", "−1 each"],
  ["penalties", "Penalties", "−1 each"], ["set_aside", "Set aside", "−1 each"],
  ["front", "In front, judged wrong", "−1 each", true], ["bluffs", "Bluffs not covered", "−1 each", true],
];

// A term's points as people write them: +9, −3, 0.
const points = (n) => (n > 0 ? `+${n}` : n < 0 ? `−${-n}` : "0");
const seatsOf = (view) => view.seats || [];
const seatEntry = (view, seat) => seatsOf(view).find((s) => s.seat === seat) || null;
const names = (ctx, seats) => list((seats || []).map((s) => ctx.playerName(s)));

// 182000 → "182 ms"; 400 → "0.4 ms" (a pad clock's uncertainty is small).
function ms(us) {
  if (us === null || us === undefined) return "—";
  return us < 10000 ? `${(us / 1000).toFixed(1)} ms` : `${Math.round(us / 1000)} ms`;
}

function paused(view, match) {
  return view.status === "paused" || (match && match.state === "paused");
}

function finished(view) {
  return view.phase === "finished" || Array.isArray(view.scores);
}

// Who won, from the result (places) or else from the scores.
function winners(view, match) {
  const r = match && match.result;
  if (r && r.placements) return r.placements.filter((p) => p.place === 1).map((p) => p.seat);
  if (!Array.isArray(view.scores) || !view.scores.length) return [];
  const best = Math.max(...view.scores.map((s) => s.score));
  return view.scores.filter((s) => s.score === best).map((s) => s.seat);
}

// ---- the race ---------------------------------------------------------------

// The race's words for everyone: who shouted, who must slap, what the
// check found, who takes a penalty, how play goes on.
function raceLine(race, ctx) {
  if (!race) return "";
  const who = names(ctx, race.shouters_seats);
  if (race.zombie === null || race.zombie === undefined) {
    const waiting = race.waiting_seats || [];
    return waiting.length ? `Zombieeees! ${who} shouted. Still to slap: ${names(ctx, waiting)}`
      : `Zombieeees! ${who} shouted. Everyone has slapped.`;
  }
  const verdict = race.zombie ? "A zombie!" : "No zombie.";
  const pen = (race.penalty_seats || []).length ? ` ${names(ctx, race.penalty_seats)} takes a penalty card.` : "";
  return `${verdict}${pen} Waiting for ${who} to drive on: “Driiiiive!”`;
}

// The slap order: each slapper, their place, the gap to the slap before.
function slapsElement(race, ctx) {
  const slaps = [...(race.slaps || [])].sort((a, b) => a.order - b.order);
  const rows = slaps.map((s) => h("tr", { dataset: { seat: s.seat } },
    h("td", ordinal(s.order)), h("th", { scope: "row" }, ctx.playerName(s.seat)),
    h("td.cz-gap", s.gap_us === null || s.gap_us === undefined ? "first" : `+${ms(s.gap_us)}`),
    h("td", s.uncertainty_us ? `± ${ms(s.uncertainty_us)}` : s.uncertainty_us === 0 ? "exact" : "—"),
    h("td", (race.penalty_seats || []).includes(s.seat) ? "penalty" : "")));
  const waiting = (race.waiting_seats || []).map((seat) => h("tr.cz-waiting", { dataset: { seat } },
    h("td", "…"), h("th", { scope: "row" }, ctx.playerName(seat)), h("td", { colspan: 3 }, "still to slap")));
  const missed = (race.penalty_seats || []).filter((s) => !slaps.some((x) => x.seat === s) && !(race.waiting_seats || []).includes(s))
    .map((seat) => h("tr", { dataset: { seat } }, h("td", "—"), h("th", { scope: "row" }, ctx.playerName(seat)),
      h("td", { colspan: 2 }, "no slap in time"), h("td", "penalty")));
  return h("table.cz-slaps", h("caption", "Slap order"),
    h("thead", h("tr", ["Order", "Player", "Gap", "Clock", "Penalty"].map((c) => h("th", { scope: "col" }, c)))),
    h("tbody", rows, missed, waiting));
}

function racePanel(view, ctx) {
  const race = view.race;
  if (!race) return null;
  const checked = race.zombie !== null && race.zombie !== undefined;
  return h("section.cz-race", { "aria-label": "Zombie pause", dataset: { checked: String(checked), zombie: String(race.zombie) } },
    h("p.cz-race-line", raceLine(race, ctx)),
    h("dl.cz-race-who",
      h("dt", "Shouted"), h("dd.cz-shouters", names(ctx, race.shouters_seats) || "—"),
      h("dt", "Must slap"), h("dd", names(ctx, race.racers_seats) || "—"),
      h("dt", "Still to slap"), h("dd.cz-still", names(ctx, race.waiting_seats) || "nobody"),
      checked && [h("dt", "Zombie"), h("dd.cz-zombie-found", race.zombie ? "yes: under the car" : "no: set aside")]),
    slapsElement(race, ctx));
}

// ---- the state in one line ------------------------------------------------------

function stateLine(view, match, ctx) {
  if (finished(view)) {
    const w = winners(view, match);
    if (!w.length) return "Game over";
    return w.length === 1 ? `${ctx.playerName(w[0])} wins!` : `${names(ctx, w)} share the victory!`;
  }
  if (paused(view, match)) return "Paused by the referee";
  switch (view.phase) {
    case "ready": return "Waiting for the start signal";
    case "race": return "Zombie pause: the table waits for the slaps";
    case "checked": return "Zombie pause: checked";
    case "ending": return `Watch out! ${names(ctx, view.finish_seats)} revealed the starting card: everyone stops.`;
    default: return "Driving: everyone resolves their own cards";
  }
}

// ---- players' tables --------------------------------------------------------------

function playersElement(view, ctx, { compact = false } = {}) {
  const two = !!view.two_player;
  const cols = compact ? ["Player", "Pile left", "Penalties"]
    : ["Player", "Pile left", ...STACKS.map((k) => STACK_SHORT[k] + " " + STACK_WORDS[k]), "Penalties", "Finish card", two ? "In front" : null];
  return h("table.cz-players", h("caption", "Players"),
    h("thead", h("tr", cols.filter(Boolean).map((c) => h("th", { scope: "col" }, c)))),
    h("tbody", seatsOf(view).map((p) => {
      const waiting = view.race && (view.race.waiting_seats || []).includes(p.seat);
      const stacks = p.stacks || {};
      return h("tr", { dataset: { seat: p.seat }, class: [waiting && "is-waiting", p.finish_card && "has-finish"].filter(Boolean).join(" ") },
        h("th", { scope: "row" }, ctx.playerName(p.seat), waiting ? h("span.cz-must-slap", " — must slap!") : null),
        h("td.cz-pile", String(p.pile_left)),
        !compact && STACKS.map((k) => h("td", { dataset: { stack: k } }, String(stacks[k] ?? 0))),
        h("td.cz-penalties", String(p.penalties ?? 0)),
        !compact && h("td", p.finish_card ? "✓ yes" : ""),
        !compact && two && h("td", frontText(p.front)));
    })));
}

function frontText(front) {
  if (!Array.isArray(front) || !front.length) return "none";
  const covered = front.filter((c) => c.covered).length;
  return `${front.length} (${covered} covered)`;
}

// ---- the end: scores and answers ----------------------------------------------------------

function scoresElement(view, match, ctx) {
  if (!Array.isArray(view.scores)) return null;
  const two = !!view.two_player;
  const terms = TERMS.filter((t) => !t[3] || two);
  const w = winners(view, match);
  return h("table.cz-scores", h("caption", "Scores"),
    h("thead", h("tr", h("th", { scope: "col" }, "Player"),
      terms.map(([, name, worth]) => h("th", { scope: "col" }, name, h("span.cz-worth", ` (${worth})`))),
      h("th", { scope: "col" }, "Score"))),
    h("tbody", view.scores.map((s) => h("tr", { dataset: { seat: s.seat }, class: w.includes(s.seat) ? "is-winner" : null },
      h("th", { scope: "row" }, ctx.playerName(s.seat), w.includes(s.seat) ? h("span.cz-win", " ★ winner") : null),
      terms.map(([k]) => h("td", { dataset: { term: k, value: s[k] ?? 0 } }, points(s[k] ?? 0))),
      h("td.cz-score", { dataset: { value: s.score } }, points(s.score))))));
}

function answersElement(view, ctx, only = null) {
  if (!Array.isArray(view.answers)) return null;
  const rows = view.answers.filter((a) => only === null || a.seat === only);
  return h("section.cz-answers", { "aria-label": "Answers per stack" },
    h("h3", "The cards' backs, stack by stack"),
    rows.map((a) => h("div.cz-answer-seat", { dataset: { seat: a.seat } },
      h("h4", ctx.playerName(a.seat)),
      h("dl", Object.entries(a.stacks || {}).filter(([, cards]) => cards && cards.length).map(([stack, cards]) => [
        h("dt", STACK_WORDS[stack] || stack),
        h("dd", h("ul.cz-backs", cards.map(backElement))),
      ])))));
}

// One card's back: its answer, and whether it was in the right stack (✓,
// ✗); a card in front of a player (two players) says whether it was covered.
function backElement(c) {
  const front = c.correct === undefined;
  const ok = front ? !!c.covered : !!c.correct;
  return h(`li.cz-back.${ok ? "is-correct" : "is-wrong"}`, { dataset: { handle: c.handle, answer: c.answer } },
    h("span.cz-mark", front ? (c.covered ? "▣" : "□") : ok ? "✓" : "✗"), " ", ANSWER_WORDS[c.answer] || c.answer,
    front ? (c.covered ? ", covered" : ", not covered") : null);
}

// Plays a short flash on el.
function flash(el, cls, text) {
  if (!el) return;
  if (text !== undefined) el.textContent = text;
  el.classList.remove(cls);
  void el.offsetWidth;          // restart the animation
  el.classList.add(cls);
  setTimeout(() => el.classList.remove(cls), CZ_FLASH_MS);
}

// ---- the table display ------------------------------------------------------------------------

export function table(root, ctx) {
  root.classList.add("cz-table");
  const banner = h("p.cz-banner", { "aria-hidden": "true" });
  const body = h("div.cz-body");
  fill(root, banner, body);
  return {
    update(view, match) {
      if (!view) return;
      fill(body,
        h("p.cz-state", { dataset: { phase: view.phase || "", pause: view.race ? "zombie" : "" } }, stateLine(view, match, ctx)),
        racePanel(view, ctx),
        playersElement(view, ctx),
        scoresElement(view, match, ctx),
        answersElement(view, ctx));
    },
    event(ev) {
      if (ev.kind === "zombie_called") flash(banner, "cz-flash", "Zombieeees!");
      else if (ev.kind === "play_resumed") flash(banner, "cz-flash", "Driiiiive!");
      else if (ev.kind === "starting_card_revealed") flash(banner, "cz-flash", "Watch out!");
    },
  };
}

// ---- the station ------------------------------------------------------------------------------

// What the seat must do now, in a word or two, and the state it is in.
function youStatus(view, match, ctx, you) {
  const race = view.race;
  if (finished(view)) {
    const w = winners(view, match);
    if (w.includes(you.seat)) return ["won", w.length > 1 ? "You share the victory!" : "You win!"];
    return ["over", w.length ? `Game over: ${names(ctx, w)} ${w.length > 1 ? "share the victory" : "wins"}` : "Game over"];
  }
  if (paused(view, match)) return ["paused", "Paused by the referee"];
  if (view.phase === "ready") return ["ready", "Wait for the start signal"];
  if (view.phase === "ending") return ["ending", "Watch out! Stop: the game is over"];
  if (you.must_slap) return ["slap", "SLAP!"];
  if (you.may_drive) return ["drive", "Driiiiive! Press your slap pad to go on"];
  if (race) {
    const shouted = (race.shouters_seats || []).includes(you.seat);
    if (race.zombie === null || race.zombie === undefined) {
      const waiting = race.waiting_seats || [];
      return ["race", shouted ? `You shouted! Waiting for ${names(ctx, waiting) || "the check"} to slap`
        : `Slapped. Waiting for ${names(ctx, waiting) || "the check"}`];
    }
    return ["checked", raceLine(race, ctx)];
  }
  if (you.may_resolve && you.card) return ["play", "Your card: where does it go?"];
  const me = seatEntry(view, you.seat);
  if (me && me.pile_left === 0 && !you.card) return ["wait", "Your pile is done: wait for the end"];
  return ["wait", "Wait for your next card"];
}

// The player's table around the car: the stacks where the rulebook puts
// them (straight above, left and right beside, U-turn below, zombies under
// the car, hand under the draw pile), each a count.
function myTable(me) {
  const st = (me && me.stacks) || {};
  const cell = (k) => h(`div.cz-stack.cz-at-${k}`, { dataset: { stack: k } },
    h("span.cz-stack-icon", { "aria-hidden": "true" }, STACK_SHORT[k]),
    h("span.cz-stack-name", STACK_WORDS[k]), h("span.cz-stack-count", String(st[k] ?? 0)));
  return h("div.cz-mytable", { role: "group", "aria-label": "Your stacks" },
    cell("straight"), cell("left"),
    cell("under_car"),
    cell("right"), cell("u_turn"),
    h("div.cz-stack.cz-at-pile", { dataset: { stack: "pile" } },
      h("span.cz-stack-name", "Pile left"), h("span.cz-stack-count.cz-pile-left", String(me ? me.pile_left : 0))),
    cell("hand"), cell("set_aside"),
    h("div.cz-stack.cz-at-penalties", { dataset: { stack: "penalties" } },
      h("span.cz-stack-name", "Penalty cards"), h("span.cz-stack-count", String(me ? me.penalties ?? 0 : 0))));
}

// Two players: the cards the opponent sent you, which you may look at,
// and on each one not covered a "Cover with a penalty card" button (the
// `cover` input, through the station's ctx.send; final): disabled while
// it is sent, gone once the view says the card is covered.  `cover` is
// null where the page sends nothing, or once the game is over.
function frontElement(you, cover) {
  if (!Array.isArray(you.front)) return null;
  return h("section.cz-front", { "aria-label": "In front of you" },
    h("h3", `In front of you: ${you.front.length} ${you.front.length === 1 ? "card" : "cards"}`),
    you.front.length ? h("ul.cz-front-cards", you.front.map((c) => h("li", { dataset: { handle: c.handle, covered: String(!!c.covered) } },
      cardFigure(c, "small"), h("p", c.covered ? "Covered with a penalty card" : "Not covered"),
      !c.covered && cover && h("button.big.cz-cover", {
        type: "button", disabled: cover.pending.has(c.handle), dataset: { handle: c.handle },
        onclick: () => cover.send(c.handle),
      }, "Cover with a penalty card"))))
      : h("p.muted", "None yet. A card the opponent shouts at lands here; look for a zombie."),
    Array.isArray(you.sent) && h("p", `You sent ${you.sent.length} ${you.sent.length === 1 ? "card" : "cards"} to your opponent.`));
}

export function station(root, ctx) {
  root.classList.add("cz-station");
  const banner = h("p.cz-banner", { "aria-hidden": "true" });
  const body = h("div.cz-body");
  fill(root, banner, body);
  let last = null;              // [view, match] as last drawn, to draw again
  // Handles of cards whose cover is being sent, or was sent and is not in
  // the view yet: their buttons stay disabled.
  const pending = new Set();
  const cover = ctx.send && {
    pending,
    async send(handle) {
      if (pending.has(handle)) return;
      pending.add(handle);
      draw();
      const reply = await ctx.send({ kind: "cover", card: handle });
      if (!reply) pending.delete(handle);     // refused: the page says why
      draw();
    },
  };

  function draw() {
    if (!last) return;
    const [view, match] = last;
    const you = view.you;
    if (!you) return fill(body, h("p", "This seat is not in the match."));
    for (const c of you.front || []) if (c.covered) pending.delete(c.handle);
    const [state, text] = youStatus(view, match, ctx, you);
    const me = seatEntry(view, you.seat);
    const race = view.race;
    fill(body,
      h("p.cz-you-status", { dataset: { state } }, text),
      h("div.cz-station-main",
        h("div.cz-station-card", { "aria-label": "Your face-up card", role: "group" },
          you.card ? cardFigure(you.card, "big") : cardFigure(null, "big")),
        h("div.cz-station-side",
          race && racePanel(view, ctx),
          myTable(me),
          frontElement(you, finished(view) ? null : cover))),
      finished(view) && scoresElement(view, match, ctx),
      finished(view) && answersElement(view, ctx, you.seat));
  }

  return {
    update(view, match) {
      if (!view) return;
      last = [view, match];
      draw();
    },
    event(ev) {
      if (ev.kind === "zombie_called") flash(banner, "cz-flash", "Zombieeees!");
      else if (ev.kind === "play_resumed") flash(banner, "cz-flash", "Driiiiive!");
      else if (ev.kind === "starting_card_revealed") flash(banner, "cz-flash", "Watch out!");
    },
  };
}

// ---- the scoreboard tile ------------------------------------------------------------------------

export function tile(root, ctx) {
  root.classList.add("cz-tile");
  return {
    update(view, match) {
      if (!view) return;
      fill(root,
        h("p.cz-state", { dataset: { phase: view.phase || "", pause: view.race ? "zombie" : "" } },
          view.race && !paused(view, match) ? raceLine(view.race, ctx) : stateLine(view, match, ctx)),
        finished(view) && Array.isArray(view.scores)
          ? h("table.cz-players", h("caption", "Scores"),
            h("thead", h("tr", ["Player", "Score", "Terms"].map((c) => h("th", { scope: "col" }, c)))),
            h("tbody", view.scores.map((s) => h("tr", { dataset: { seat: s.seat } },
              h("th", { scope: "row" }, ctx.playerName(s.seat)), h("td.cz-score", { dataset: { value: s.score } }, points(s.score)),
              h("td.cz-terms", TERMS.filter(([k]) => s[k]).map(([k, name]) => `${name} ${points(s[k])}`).join(", "))))))
          : playersElement(view, ctx, { compact: true }));
    },
  };
}

// ---- the referee -------------------------------------------------------------------------------------

// "Driiiiive!" as one big button, enabled once the race is checked, and a
// misfire's correction: each seat's face-up card and, per stack, its
// cards' handles with "Move to …" (the `move` input: only among the five
// direction and hand stacks).  Both go through the console's preview and
// confirm like every input; the referee's view holds no answer.
export const refereeHandles = ["drive", "move"];
const MOVABLE = ["straight", "left", "right", "u_turn", "hand"];

function moveControl(seat, handle, from, ctx) {
  const select = h("select", { "aria-label": `Move card ${handle} of ${ctx.playerName(seat)} to` },
    MOVABLE.filter((k) => k !== from).map((k) => h("option", { value: k }, STACK_WORDS[k])));
  return h("li.cz-move", { dataset: { handle } }, h("code", handle), " ", select, " ",
    h("button", { type: "button", onclick: () => ctx.propose({ kind: "move", seat, card: handle, to: select.value }) }, "Move"));
}

function refereeSeat(entry, ctx) {
  const stacks = entry.stacks || {};
  return h("section.cz-ref-seat", { dataset: { seat: entry.seat }, "aria-label": ctx.playerName(entry.seat) },
    h("h4", ctx.playerName(entry.seat)),
    entry.card ? cardFigure(entry.card, "small") : h("p.muted", "No card face up"),
    h("dl", MOVABLE.filter((k) => (stacks[k] || []).length).map((k) => [
      h("dt", `${STACK_WORDS[k]} (${stacks[k].length})`),
      h("dd", h("ul.plain", stacks[k].map((handle) => moveControl(entry.seat, handle, k, ctx)))),
    ])));
}

export function refereeSteps(root, ctx) {
  root.classList.add("cz-referee");
  const button = h("button.big.cz-drive", { type: "button", onclick: () => ctx.propose({ kind: "drive" }) },
    "Driiiiive! Resume play (drive)");
  const state = h("div");
  const seats = h("div.cz-ref-seats");
  fill(root, h("h3", "Crazy Pilot"), state, button, seats);
  let drawn = null;             // the seats as last drawn: a redraw resets a chosen "Move to"
  return {
    update(view, match) {
      if (!view) return;
      button.disabled = !(view.race && view.race.zombie !== null && view.race.zombie !== undefined);
      fill(state, h("p.cz-state", stateLine(view, match, ctx)), racePanel(view, ctx));
      const ref = view.referee;
      const now = ref && !finished(view) ? JSON.stringify(ref.seats || []) : "";
      if (now === drawn) return;
      drawn = now;
      fill(seats, now ? ref.seats.map((e) => refereeSeat(e, ctx)) : null);
    },
  };
}

// ---- events in words ------------------------------------------------------------------------------------

export function describe(ev, ctx) {
  const who = ctx.playerName(ev.seat);
  switch (ev.kind) {
    case "card_shown":
      return ev.card ? `${who}'s card ${ev.number}: ${sceneText(ev.card)}.` : `${who} turns over card ${ev.number}.`;
    case "card_resolved":
      return `${who} placed a card: ${PLACEMENT_WORDS[ev.placement] || ev.placement}` +
        (ev.reaction_us ? ` (${seconds(ev.reaction_us)}).` : ".");
    case "zombie_called":
      return `Zombieeees! ${names(ctx, ev.seats)} shouted` +
        ((ev.racers || []).length ? `: ${names(ctx, ev.racers)}, slap!` : ".");
    case "slap_recorded":
      return `${who} slapped ${ordinal(ev.order)}` +
        (ev.gap_us === null || ev.gap_us === undefined ? "" : `, ${ms(ev.gap_us)} after the previous`) +
        (ev.reaction_us ? ` (${seconds(ev.reaction_us)} after the shout).` : ".");
    case "zombie_checked":
      return ev.zombie ? `${who}'s card had a zombie: under the car.` : `${who}'s card had no zombie: set aside.`;
    case "penalty_given":
      return `${who} takes a penalty card (${ev.reason === "no_slap" ? "no slap in time" : "slapped last"}).`;
    case "play_resumed":
      return `Driiiiive! Play goes on (${ev.by === "referee" ? "the referee" : ev.by === "timeout" ? "automatically" : "the shouter"}).`;
    case "starting_card_revealed":
      return `Watch out! ${who} revealed the starting card: the game is over.`;
    case "card_sent":
      return `Zombieeees! ${who} sent a card to ${ctx.playerName(ev.to_seat)}.`;
    case "card_covered":
      return `${who} covered a card with a penalty card.`;
    case "card_moved":
      return `The referee moved ${who}'s card from ${PLACEMENT_WORDS[ev.from] || ev.from} to ${PLACEMENT_WORDS[ev.to] || ev.to}.`;
    case "seat_scored":
      return `${who} scores ${ev.score}: ` + TERMS.filter(([k]) => ev[k]).map(([k, name]) => `${name.toLowerCase()} ${points(ev[k])}`).join(", ") + ".";
    case "match_finished":
      return ev.winner ? `${ctx.playerName(ev.winner)} wins the game!` : "The game is over.";
    default:
      return null;
  }
}
