// web/js/tournament/registration.js — who is registered and checked in,
// from GET /v1/tournaments/{id}/registrations, and the organiser's forms.
//
// The list is the check-in list: one row per registration (by seed, then
// time of registration, as the server orders them) saying in words
// whether the player is checked in and still in; for the organiser a
// "Check in" button per player not checked in, once check-in is open (the
// check_in state and after), and a "Drop" button that asks once more (a
// drop cannot be undone).  The organiser's forms register a player from the
// club's list (GET /v1/players), or add a new player (POST /v1/players) and
// register them, with an optional seed.
import { h } from "../lib/dom.js";
import { CHECK_IN_OPEN, REGISTRATION_OPEN } from "./words.js";

let confirmingDrop = null;     // the player whose drop waits for "Drop … for good"

// drawRegistrations(regs, opts): opts.organiser, opts.state (the
// tournament's), opts.onCheckIn(reg), opts.onDrop(reg), opts.redraw().
export function drawRegistrations(regs, opts) {
  const active = regs.filter((r) => r.status === "active");
  const summary = `${regs.length} registered · ${active.filter((r) => r.checked_in).length} checked in` +
    (regs.length > active.length ? ` · ${regs.length - active.length} dropped or disqualified` : "");
  if (!regs.length) return h("p.muted", "Nobody has registered yet.");
  const open = REGISTRATION_OPEN.has(opts.state);
  const checkIn = CHECK_IN_OPEN.has(opts.state);
  return h("div",
    h("p.reg-summary", summary),
    h("table.registrations",
      h("caption.visually-hidden", "Registrations and check-in"),
      h("thead", h("tr", ["Seed", "Player", "Club", "Checked in", "Status"].map((c) => h("th", { scope: "col" }, c)),
        opts.organiser ? h("th", { scope: "col" }, "Organiser") : null)),
      h("tbody", regs.map((r) => h(`tr.status-${r.status}${r.checked_in ? ".is-checked-in" : ""}`, { dataset: { player: r.player } },
        h("td.seed", r.seed ? String(r.seed) : "—"),
        h("th", { scope: "row" }, h("a", { href: `player?id=${r.player}` }, r.name)),
        h("td", r.club || ""),
        h("td.checked", r.checked_in ? [h("span", { "aria-hidden": "true" }, "✓ "), "Checked in"] : "Not yet"),
        h("td", r.status === "active" ? "In" : r.status === "dropped" ? "Dropped" : "Disqualified", r.late ? " (late entry)" : ""),
        opts.organiser ? h("td.actions", open && r.status === "active" ? actions(r, opts, checkIn) : null) : null)))));
}

function actions(r, opts, checkIn) {
  if (confirmingDrop === r.player) {
    return [h("span", `Drop ${r.name} for good? `),
      h("button.danger", { type: "button", onclick: () => { confirmingDrop = null; opts.onDrop(r); } }, `Drop ${r.name}`), " ",
      h("button", { type: "button", onclick: () => { confirmingDrop = null; opts.redraw(); } }, `Keep ${r.name}`)];
  }
  return [
    r.checked_in || !checkIn ? null : h("button.primary.check-in", { type: "button", "aria-label": `Check in ${r.name}`, onclick: () => opts.onCheckIn(r) }, "Check in"),
    " ",
    h("button.drop", { type: "button", "aria-label": `Drop ${r.name}…`, onclick: () => { confirmingDrop = r.player; opts.redraw(); } }, "Drop…"),
  ];
}

// registrationForms(opts): opts.players (the club's), opts.regs, opts.state,
// opts.onRegister(playerId, seed, form), opts.onNewPlayer({name, club}, seed, form).
export function registrationForms(opts) {
  if (!REGISTRATION_OPEN.has(opts.state)) {
    return h("p.muted", opts.state === "finished" ? "The tournament is finished: registration is closed."
      : "Registration opens with the tournament's state “Registration open” (above).");
  }
  const registered = new Set(opts.regs.map((r) => r.player));
  const free = opts.players.filter((p) => p.active && !registered.has(p.id)).sort((a, b) => a.name.localeCompare(b.name));
  const late = opts.state === "running"
    ? h("p.muted", "The tournament is running: a player registered now is a late entry, checked in at once and added to the running stage if its format takes late entries.")
    : null;

  const seedInput = () => h("input", { type: "number", name: "seed", min: 1, max: 100000, step: 1 });
  const seedA = seedInput();
  const select = h("select", { name: "player", required: true },
    h("option", { value: "" }, free.length ? "Choose a player…" : "Every player is registered"),
    free.map((p) => h("option", { value: p.id }, p.club ? `${p.name} (${p.club})` : p.name)));
  const fromList = h("form.reg-form#register-form",
    h("h3", "Register a player"),
    h("label", "Player", select),
    h("label", "Seed (optional, 1 the best)", seedA),
    h("button.primary", { type: "submit", disabled: !free.length }, "Register"));
  fromList.addEventListener("submit", (e) => {
    e.preventDefault();
    if (!select.value) return;
    opts.onRegister(Number(select.value), seedA.value ? Number(seedA.value) : null, fromList);
  });

  const name = h("input", { type: "text", name: "name", required: true, maxlength: 64, autocomplete: "off" });
  const club = h("input", { type: "text", name: "club", maxlength: 64, autocomplete: "off" });
  const seedB = seedInput();
  const fresh = h("form.reg-form#new-player-form",
    h("h3", "A new player"),
    h("label", "Name", name),
    h("label", "Club (optional)", club),
    h("label", "Seed (optional)", seedB),
    h("button.primary", { type: "submit" }, "Add and register"));
  fresh.addEventListener("submit", (e) => {
    e.preventDefault();
    const body = { name: name.value.trim() };
    if (club.value.trim()) body.club = club.value.trim();
    opts.onNewPlayer(body, seedB.value ? Number(seedB.value) : null, fresh);
  });
  return h("div", late, h("div.reg-forms", fromList, fresh));
}
