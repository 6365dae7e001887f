// web/js/ratings/words.js — a rating as people read it, per system
// (docs/ratings.md): OpenSkill's ordinal μ − 3σ (what its leaderboard
// sorts by; a newcomer starts at 0) with μ and σ, Glicko-2's rating with
// its deviation RD.
export const SYSTEMS = {
  openskill: {
    name: "OpenSkill",
    value: (r) => r.ordinal,
    axis: "OpenSkill ordinal (μ − 3σ)",
    short: "Ordinal",
    text: (v) => v.toFixed(2),
    detail: (r) => `μ ${r.mu.toFixed(2)}, σ ${r.sigma.toFixed(2)}`,
    games: "Matches",
  },
  glicko2: {
    name: "Glicko-2",
    value: (r) => r.rating,
    axis: "Glicko-2 rating",
    short: "Rating",
    text: (v) => String(Math.round(v)),
    detail: (r) => `RD ${Math.round(r.rd)}`,
    games: "Duels",
  },
};

export const systemOf = (name) => SYSTEMS[name] || SYSTEMS.openskill;

// +1.23 / −0.40, with the word for those who cannot see the colour.
export function change(system, before, after) {
  const s = systemOf(system);
  const d = s.value(after) - s.value(before);
  const text = s.text(Math.abs(d));
  if (Number(text) === 0) return { text: "±0", cls: "", word: "no change" };
  return d > 0 ? { text: `▲ +${text}`, cls: "up", word: "up" } : { text: `▼ −${text}`, cls: "down", word: "down" };
}
