// web/games/index.js — the games that have a module of their own.
//
// A game listed here is drawn by its module (docs/web.md, "Game modules");
// any other game is drawn by games/generic.js from its public view.  A
// game's issue adds its line here with its module.
export const modules = {
  "crash-pilot": () => import("./crash-pilot/index.js"),
  "crazy-pilot": () => import("./crazy-pilot/index.js"),
  "pitch-fleet": () => import("./pitch-fleet/index.js"),
};
