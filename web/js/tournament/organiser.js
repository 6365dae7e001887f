// web/js/tournament/organiser.js — the organiser's part of a tournament
// page: the admin token, typed once and kept for the tab (auth.js, as the
// referee console keeps its token), the tournament's state moves and
// "Pair the next round".
//
// A token is taken for an organiser's only when arbiterd says it is an
// admin's: GET /v1/tokens answers admins only (a 401 or 403 is a token
// refused, forgotten, and asked for again).  Every action's failure is the
// server's problem+json detail: a 409 names what is wrong (the moves the
// state allows, the matches still to be played).
import * as api from "../lib/api.js";
import { forgetToken, setToken, token } from "../lib/auth.js";
import { $, fill, h } from "../lib/dom.js";
import { STATE_MOVES, tournamentState } from "./words.js";

// The problem's detail, and the stage matches it lists (a round still to
// be played, dependents of a correction).
export function problemText(e) {
  const p = e.problem || {};
  const matches = Array.isArray(p.matches) && p.matches.length ? ` (stage matches ${p.matches.join(", ")})` : "";
  return `${e.message}${matches}`;
}

// organiser(root, opts) wires the section's token form (#organiser-form,
// #organiser-token, #organiser-set, #organiser-forget) and returns
// {admin(), check(), draw(t)}.  opts: onChange(admin), say(text), the
// page's message; onMove(state), onPair(), the actions.
export function organiser(opts) {
  let admin = false;

  const show = () => {
    $("#organiser-signin").hidden = admin;
    $("#organiser-set").hidden = !admin;
    $("#organiser-actions").hidden = !admin;
  };

  // true when the tab's token is an admin's
  const check = async () => {
    const was = admin;
    admin = false;
    if (token()) {
      try {
        await api.get("/v1/tokens?limit=1");
        admin = true;
      } catch (e) {
        if (e.status === 401 || e.status === 403) {
          opts.say(`That token was refused for organising: ${e.message} Enter an admin token.`);
          forgetToken();
        } else {
          opts.say(`Cannot check the token: ${e.message}`);
        }
      }
    }
    show();
    if (admin !== was) opts.onChange(admin);
    return admin;
  };

  $("#organiser-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const input = $("#organiser-token");
    setToken(input.value.trim());
    input.value = "";
    opts.say("");
    if (await check()) $("#organiser-actions").focus();
  });
  $("#organiser-forget").addEventListener("click", () => {
    forgetToken();
    check();
  });

  const draw = (t) => {
    const moves = STATE_MOVES[t.state] || [];
    fill($("#state-moves"),
      h("p", "The tournament is ", h("strong", tournamentState(t.state)), "."),
      h("div.button-row", moves.map(([state, words, next]) => h(`button${next ? ".primary" : ""}`,
        { type: "button", dataset: { move: state }, onclick: () => opts.onMove(state) }, words))));
    $("#pair").disabled = t.state !== "running";
  };
  $("#pair").addEventListener("click", () => opts.onPair());

  show();
  return { admin: () => admin, check, draw };
}

// What POST …/rounds paired, in a sentence.
export function pairedText(reply) {
  const n = reply.matches.length;
  const byes = reply.byes && reply.byes.length ? `; sitting out: ${reply.byes.map((b) => b.name).join(", ")}` : "";
  const repeats = reply.repeats ? `; ${reply.repeats} repeat pairing${reply.repeats === 1 ? "" : "s"}` : "";
  return `Stage ${reply.stage}, round ${reply.round}: ${n} ${n === 1 ? "match" : "matches"} paired${byes}${repeats}.`;
}
