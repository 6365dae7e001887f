// web/js/lib/format.js — how values read on a screen.
//
// Times in the API are microseconds of match time (docs/matches.md,
// "Conventions"); people read reaction times in seconds with three
// decimals.  Names in the API are snake_case; people read words.

// 812345 → "0.812 s"; null → "—".
export function seconds(us) {
  if (us === null || us === undefined) return "—";
  return `${(us / 1e6).toFixed(3)} s`;
}

// "neutral_cards" → "Neutral cards"; "doesnt_fit" → "Doesnt fit".
export function words(name) {
  const s = String(name).replace(/_/g, " ");
  return s.charAt(0).toUpperCase() + s.slice(1);
}

// "wrong_call" → "wrong call" (inside a sentence).
export function lowerWords(name) {
  return String(name).replace(/_/g, " ");
}

// 1 → "1st", 2 → "2nd", 11 → "11th".
export function ordinal(n) {
  const teen = n % 100 >= 11 && n % 100 <= 13;
  const suffix = teen ? "th" : ({ 1: "st", 2: "nd", 3: "rd" })[n % 10] || "th";
  return `${n}${suffix}`;
}

// "Ana, Ben and Cy".
export function list(items) {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}

// A seat's label from a match resource: "Ana (seat 2)", or "Seat 2" when
// the match is not known or the seat has no name.  null → "nobody".
export function seatName(match, seat) {
  if (seat === null || seat === undefined) return "nobody";
  const s = match && match.seats && match.seats.find((x) => x.seat === seat);
  return s && s.name ? `${s.name} (seat ${seat})` : `Seat ${seat}`;
}

// Only the name: "Ana", or "Seat 2".
export function playerName(match, seat) {
  const s = match && match.seats && match.seats.find((x) => x.seat === seat);
  return s && s.name ? s.name : `Seat ${seat}`;
}

// Match states as people say them (docs/matches.md, "Match states").
const STATES = {
  ready: "Ready", running: "Playing", paused: "Paused", provisional: "Waiting for the referee",
  finished: "Finished", aborted: "Aborted",
};
export function matchState(state) {
  return STATES[state] || words(state || "unknown");
}
