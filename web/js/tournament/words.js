// web/js/tournament/words.js — how a tournament's values read on a
// screen: states, formats, tie-breaks (docs/tournaments.md, "Tie-breaks")
// and numbers.  Names in the API are snake_case; people read words.
import { ordinal, words } from "../lib/format.js";

// Tournament states (docs/openapi.yaml, POST /v1/tournaments/{id}/state).
const TOURNAMENT_STATES = {
  draft: "Draft", registration: "Registration open", check_in: "Check-in", running: "Running",
  finished: "Finished",
};
export function tournamentState(state) {
  return TOURNAMENT_STATES[state] || words(state || "unknown");
}

// The moves the state table allows, each as the organiser's button says
// it; the first is the night's next step when it is marked "next" (while
// running, the next step is pairing a round, not finishing).
export const STATE_MOVES = {
  draft: [["registration", "Open registration", "next"]],
  registration: [["check_in", "Open check-in", "next"], ["draft", "Back to draft"]],
  check_in: [["running", "Start the tournament", "next"], ["registration", "Reopen registration"]],
  running: [["finished", "Finish the tournament"], ["check_in", "Back to check-in"]],
  finished: [["running", "Reopen the tournament"]],
};

// Where players may register, and where they may check in: check-in opens
// with the check_in state, on the day (the daemon says the same with a 409;
// tournament/states.h).
export const REGISTRATION_OPEN = new Set(["registration", "check_in", "running"]);
export const CHECK_IN_OPEN = new Set(["check_in", "running"]);

const FORMATS = {
  single_elimination: "Single elimination", double_elimination: "Double elimination", round_robin: "Round robin",
  swiss: "Swiss", pod_swiss: "Pod Swiss", league: "League", heats: "Heats", race: "Race", groups: "Groups",
};
export function formatName(format) {
  return FORMATS[format] || words(format || "unknown");
}

export const isElimination = (format) => format === "single_elimination" || format === "double_elimination";

const STAGE_STATES = { pending: "Not started", running: "Playing", finished: "Finished" };
export function stageState(state) {
  return STAGE_STATES[state] || words(state || "unknown");
}

// "Stage 2: Double elimination (top 4)".
export function stageTitle(stage) {
  const cut = stage.advance ? ` (top ${stage.advance})` : "";
  return `Stage ${stage.number}: ${formatName(stage.format)}${cut}`;
}

// What a stage's config says, in a few words (defaults are the format's).
export function stageDetails(stage) {
  const c = stage.config || {};
  const parts = [];
  if (c.table_size) parts.push(`tables of ${c.table_size}`);
  if (c.grand_final) parts.push(`grand final: ${c.grand_final}`);
  if (c.third_place) parts.push("third-place match");
  if (c.groups) parts.push(`${c.groups} groups`);
  if (c.double_round_robin) parts.push("double round robin");
  if (stage.confirm) parts.push("results confirmed by a referee");
  return parts.join(", ");
}

// Stage match states (StageMatch.state).
const MATCH_STATES = { pending: "To be called", called: "Playing", done: "Done" };
export function stageMatchState(state) {
  return MATCH_STATES[state] || words(state || "unknown");
}

// Tie-breaks: a column's short name, its full name, whether lower is
// better, and whether it is a percentage (docs/tournaments.md).
const TIEBREAKS = {
  buchholz: ["Buchholz", "Buchholz: the sum of the opponents' points"],
  cut1: ["Cut-1", "Buchholz cut 1: Buchholz without the lowest opponent"],
  median1: ["Median-1", "Median Buchholz: Buchholz without the highest and the lowest opponent"],
  median2: ["Median-2", "Median Buchholz 2: Buchholz without the two highest and the two lowest opponents"],
  median: ["Median", "Median Buchholz: Buchholz without the highest and the lowest opponent"],
  modified_median: ["Mod. median", "Modified median (US Chess): opponents' scores without the lowest for a plus score, the highest for a minus score, both for an even score"],
  sonneborn_berger: ["SB", "Sonneborn-Berger: the opponents' points weighted by the result against each"],
  cumulative: ["Cumul.", "Cumulative: the sum of the running score after each round"],
  direct_encounter: ["DE", "Direct encounter: position among the tied players by their results against each other", "lower"],
  omw: ["OMW%", "Opponents' match-win percentage", null, "pct"],
  gw: ["GW%", "Game-win percentage", null, "pct"],
  ogw: ["OGW%", "Opponents' game-win percentage", null, "pct"],
  placement_avg: ["Avg place", "Average place at the table", "lower"],
  seat_adjusted: ["Seat adj.", "Seat-adjusted score: points beyond what the seats played were worth"],
};
export function tiebreak(name) {
  const [short, long, better, kind] = TIEBREAKS[name] || [words(name), words(name)];
  return { name, short, long: better === "lower" ? `${long} (lower is better)` : long, lower: better === "lower",
    pct: kind === "pct" };
}

// Numbers as people write them: whole numbers plain, others to two
// decimals without trailing zeros (10/3 → "3.33", 2.5 → "2.5").
export function num(v) {
  if (v === null || v === undefined || Number.isNaN(v)) return "—";
  if (Number.isInteger(v)) return String(v);
  return String(Number(v.toFixed(2)));
}

// 0.665 → "66.5%".
export function pct(v) {
  if (v === null || v === undefined) return "—";
  return `${Number((v * 100).toFixed(1))}%`;
}

export function tiebreakValue(name, v) {
  return tiebreak(name).pct ? pct(v) : num(v);
}

// A result in seat order ([{player, rank, forfeit, name?}]) as places:
// "1st Dev, 2nd Bo"; names from the entry or from names (player → name).
export function resultText(result, names) {
  if (!result || !result.length) return "";
  return [...result].sort((a, b) => a.rank - b.rank)
    .map((r) => `${ordinal(r.rank)} ${r.name || names.get(r.player) || `player ${r.player}`}${r.forfeit ? " (forfeit)" : ""}`)
    .join(", ");
}

// A date-time from the API, as the venue's clock reads it: "1 Dec, 19:49".
export function when(iso) {
  if (!iso) return "";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return d.toLocaleString(undefined, { day: "numeric", month: "short", hour: "2-digit", minute: "2-digit" });
}

export function day(iso) {
  if (!iso) return "";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return d.toLocaleDateString(undefined, { day: "numeric", month: "short", year: "numeric" });
}
