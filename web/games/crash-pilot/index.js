// web/games/crash-pilot/index.js — Crash Pilot's look: the table display,
// a seat's station, the scoreboard tile and the referee's quick undo
// (docs/web.md, "Game modules"; the view and events are
// docs/games/crash-pilot.md, "Views" and "Events").
//
// Everything drawn comes from the view; events only add what a view does
// not keep: a sentence for the announcements and a short flash of the
// verdict.  Animations last at most CP_FLASH_MS, well under the verdict
// pause (reveal.pause_ms, 1000 ms by default), so they never hide the next
// card.
import { h, fill } from "../../js/lib/dom.js";
import { list, ordinal, seconds } from "../../js/lib/format.js";
import { cardElement, cardName } from "./cards.js";

export const stylesheet = new URL("./crash-pilot.css", import.meta.url).href;

export { cardName as cardText };

const CP_FLASH_MS = 600;
const CHIPS_OUT = 3;            // "Any player with three chips is out of the game."
const VERDICT_WORDS = { correct: "correct", wrong: "wrong", too_late: "too late", not_allowed: "not allowed" };
const VERDICT_MARK = { correct: "✓", wrong: "✗", too_late: "…", not_allowed: "⦸" };

function sourceText(face, ctx) {
  if (!face) return "";
  if (face.source === "stack") return `from ${ctx.playerName(face.seat)}'s stack`;
  if (face.source === "again") return "shown again";
  return "from the neutral deck";
}

function rowsElement(view, size) {
  return h("ol.cp-rows", { "aria-label": "Rows" }, (view.rows || []).map((row, i) =>
    h("li.cp-row", { dataset: { row: i + 1 } },
      h("span.cp-row-label", `Row ${i + 1}`),
      h("ol.cp-row-cards", { "aria-label": `Row ${i + 1}: ${row.length} cards` },
        row.map((c) => h("li", cardElement(c, size)))))));
}

function chipsElement(chips) {
  return h("span.cp-chips", { role: "img", "aria-label": `${chips} of ${CHIPS_OUT} chips` },
    Array.from({ length: CHIPS_OUT }, (_, i) => h(i < chips ? "span.cp-chip.cp-chip-on" : "span.cp-chip", i < chips ? "●" : "○")),
    h("span.cp-chips-text", ` ${chips}/${CHIPS_OUT}`));
}

function badge(p) {
  if (p.winner) return h("span.cp-badge.cp-winner", "Winner");
  if (p.out) return h("span.cp-badge.cp-out", `Out (${ordinal(p.out_order)} out)`);
  if (p.in_tiebreak) return h("span.cp-badge.cp-tiebreak", "Tiebreak");
  return null;
}

function playersElement(view, ctx, compact) {
  return h("table.cp-players", h("caption", "Players"),
    h("thead", h("tr", h("th", { scope: "col" }, "Player"), h("th", { scope: "col" }, "Cards left"),
      h("th", { scope: "col" }, "Chips"), !compact && h("th", { scope: "col" }, "Calls right/wrong"),
      !compact && h("th", { scope: "col" }, "Average reaction"), h("th", { scope: "col" }, "Status"))),
    h("tbody", (view.players || []).map((p) => h("tr", {
      dataset: { seat: p.seat }, class: [p.out && "is-out", p.winner && "is-winner", p.in_tiebreak && "is-tiebreak"].filter(Boolean).join(" "),
    },
    h("th", { scope: "row" }, ctx.playerName(p.seat)),
    h("td.cp-stack", String(p.cards_left)),
    h("td", chipsElement(p.chips)),
    !compact && h("td", `${p.correct}/${p.wrong}`),
    !compact && h("td", seconds(p.reaction_avg_us)),
    h("td", badge(p))))));
}

function verdictElement(view, ctx) {
  const c = view.last_call;
  if (!c) return h("p.cp-verdict.cp-none", "No call yet");
  return h(`p.cp-verdict.cp-${c.verdict}`, { dataset: { verdict: c.verdict } },
    h("span.cp-mark", { "aria-hidden": "true" }, VERDICT_MARK[c.verdict] || ""),
    h("span.cp-verdict-text", `${ctx.playerName(c.seat)} called ${c.call_name}: ${VERDICT_WORDS[c.verdict] || c.verdict}`),
    c.reaction_us ? h("span.cp-reaction", ` in ${seconds(c.reaction_us)}`) : null);
}

// What the table is waiting for, in one line.
function stateLine(view, ctx) {
  if (view.winner !== null && view.winner !== undefined) return `${ctx.playerName(view.winner)} wins!`;
  if (view.status === "paused") return "Paused by the referee";
  if (view.phase === "ready") return "Waiting for the start";
  if (view.tiebreak && view.tiebreak.length) return `Tiebreak: only ${list(view.tiebreak.map(ctx.playerName))} may call`;
  if (view.phase === "showing") return "Call a row, or “doesn't fit”";
  if (view.phase === "between" && view.next) {
    return view.next.source === "stack" ? `Next card from ${ctx.playerName(view.next.seat)}'s stack` : "Next card from the neutral deck";
  }
  return "";
}

function faceElement(view, ctx, size) {
  return h("div.cp-face", { "aria-label": "Face-up card", role: "group" },
    cardElement(view.face_up, size),
    h("p.cp-source", sourceText(view.face_up, ctx)),
    h("p.cp-neutral", `Neutral deck: ${view.neutral_cards}`));
}

// Plays the short flash of a verdict or a reveal on el.
function flash(el, cls) {
  el.classList.remove(cls);
  void el.offsetWidth;          // restart the animation
  el.classList.add(cls);
  setTimeout(() => el.classList.remove(cls), CP_FLASH_MS);
}

// The table display: the six rows, the face-up card, the verdict, the
// players; big.
export function table(root, ctx) {
  root.classList.add("cp-table");
  let last = null;
  return {
    update(view) {
      if (!view) return;
      const reveal = view.face_up && (!last || !last.face_up || last.face_up.handle !== view.face_up.handle);
      fill(root,
        h("div.cp-board", rowsElement(view, "row"),
          h("div.cp-centre", faceElement(view, ctx, "big"),
            h("p.cp-state", { dataset: { phase: view.phase } }, stateLine(view, ctx)),
            verdictElement(view, ctx)),
          playersElement(view, ctx, false)));
      if (reveal) flash(root.querySelector(".cp-face .cp-card"), "cp-flip");
      last = view;
    },
    event(ev) {
      if (ev.kind === "call_judged") {
        const v = root.querySelector(".cp-verdict");
        if (v) flash(v, "cp-flash");
      }
    },
  };
}

// A seat's station: its own entry (you), the face-up card and whether it
// may call; nothing of any other seat beyond the public view.
export function station(root, ctx) {
  root.classList.add("cp-station");
  return {
    update(view) {
      if (!view) return;
      const you = view.you;
      if (!you) return fill(root, h("p", "This seat is not in the match."));
      let status = "Wait for the next card";
      if (you.winner) status = "You won!";
      else if (view.winner !== null && view.winner !== undefined) status = `${ctx.playerName(view.winner)} won`;
      else if (you.out) status = `You are out (${ordinal(you.out_order)} out)`;
      else if (view.status === "paused") status = "Paused by the referee";
      else if (view.phase === "ready") status = "Waiting for the start";
      else if (you.in_tiebreak) status = "Tiebreak: you may call";
      else if (you.may_call) status = "Call now!";
      else if (view.tiebreak && view.tiebreak.length) status = "Tiebreak: wait";
      const mine = view.last_call && view.last_call.seat === you.seat ? view.last_call : null;
      fill(root,
        h("p.cp-you-status", { dataset: { may_call: String(you.may_call) } }, status),
        h("dl.cp-you",
          h("dt", "Cards left"), h("dd.cp-you-cards", String(you.cards_left)),
          h("dt", "Chips"), h("dd", chipsElement(you.chips)),
          h("dt", "Calls right / wrong"), h("dd", `${you.correct} / ${you.wrong}`),
          h("dt", "Average reaction"), h("dd", seconds(you.reaction_avg_us))),
        mine && h("p.cp-your-call", `Your last call, ${mine.call_name}: ${VERDICT_WORDS[mine.verdict]}`,
          mine.reaction_us ? ` in ${seconds(mine.reaction_us)}` : ""),
        faceElement(view, ctx, "big"));
    },
  };
}

// A scoreboard tile: rows small, the face-up card, chips and stacks.
export function tile(root, ctx) {
  root.classList.add("cp-tile");
  return {
    update(view) {
      if (!view) return;
      fill(root,
        h("div.cp-tile-top", faceElement(view, ctx, "row"), rowsElement(view, "small")),
        h("p.cp-state", stateLine(view, ctx)),
        verdictElement(view, ctx),
        playersElement(view, ctx, true));
    },
  };
}

// The referee's quick undo: void_call (docs/games/crash-pilot.md, "A
// referee's void_call") as one big button, enabled when the view says it
// would be taken; it goes through the console's preview and confirm.
export const refereeHandles = ["void_call"];
export function refereeSteps(root, ctx) {
  root.classList.add("cp-referee");
  const button = h("button.big.cp-void-call", { type: "button", onclick: () => ctx.propose({ kind: "void_call" }) },
    "Undo the last call (void_call)");
  const face = h("div");
  fill(root, h("h3", "Crash Pilot"), face, button);
  return {
    update(view) {
      if (!view) return;
      button.disabled = !view.can_void;
      fill(face, faceElement(view, ctx, "row"), verdictElement(view, ctx));
    },
  };
}

// Sentences for the announcements, where the game's own texts
// (GET /v1/games/crash-pilot) read less well on a screen; null: theirs.
export function describe(ev, ctx) {
  const who = ctx.playerName(ev.seat);
  switch (ev.kind) {
    case "card_revealed":
      return `Card ${ev.reveal}: ${cardName(ev.card)}, ${sourceText({ source: ev.source, seat: ev.source_seat }, ctx)}.`;
    case "call_judged":
      return `${who} calls ${ev.call_name}: ${VERDICT_WORDS[ev.verdict] || ev.verdict}` +
        (ev.reaction_us ? ` (${seconds(ev.reaction_us)}).` : ".");
    case "tiebreak_started":
      return `Tie! ${list(ev.seats.map(ctx.playerName))} called at the same time: tiebreak.`;
    case "player_eliminated":
      return `${who} has three chips and is out.`;
    case "match_finished":
      return ev.winner ? `${ctx.playerName(ev.winner)} wins the match!` : "The match is over.";
    default:
      return null;
  }
}
