// web/games/crash-pilot/cards.js — Crash Pilot's cards on screen.
//
// The engine numbers a card's object and colour from 0 (up to 8 of each,
// docs/games/crash-pilot.md "The deck"), names each card ("name": "red
// star", the same words the referee's explanations use; "Card names") and
// points to cards by opaque handles.  A screen needs a look: each object
// is drawn as a shape, each colour is a fill, and the name is always
// written under the shape, so colour is never the only cue (and a card
// reads the same to a screen reader: the figure's accessible name is the
// caption).  The lists below must follow the engine's order of objects and
// colours: they pick the shape and the fill, and the engine's name wins.
import { h } from "../../js/lib/dom.js";

export const COLOURS = ["red", "blue", "green", "yellow", "purple", "orange", "pink", "grey"];
export const OBJECTS = ["circle", "square", "triangle", "star", "diamond", "cross", "heart", "hexagon"];

// "red star": the engine's name; without one (an older server), from the
// lists, and an object or colour beyond them by number.
export function cardName(card) {
  if (!card) return "no card";
  if (typeof card.name === "string" && card.name) return card.name;
  const colour = COLOURS[card.colour] || `colour ${card.colour}`;
  const object = OBJECTS[card.object] || `object ${card.object}`;
  return `${colour} ${object}`;
}

// Shapes in a 100 × 100 box, one per object.
const SHAPES = [
  () => h("circle", { cx: 50, cy: 50, r: 36 }),
  () => h("rect", { x: 16, y: 16, width: 68, height: 68, rx: 4 }),
  () => h("polygon", { points: "50,12 90,84 10,84" }),
  () => h("polygon", { points: "50,8 61,38 93,38 67,58 77,90 50,71 23,90 33,58 7,38 39,38" }),
  () => h("polygon", { points: "50,6 90,50 50,94 10,50" }),
  () => h("polygon", { points: "38,10 62,10 62,38 90,38 90,62 62,62 62,90 38,90 38,62 10,62 10,38 38,38" }),
  () => h("path", { d: "M50 88 L14 52 A20 20 0 0 1 50 22 A20 20 0 0 1 86 52 Z" }),
  () => h("polygon", { points: "50,8 87,29 87,71 50,92 13,71 13,29" }),
];

// A card as a figure: the shape in its colour, its name as the caption.
// size: "big" (the face-up card), "row" (a row's card), "small" (a tile).
export function cardElement(card, size = "row") {
  if (!card) return h(`div.cp-card.cp-empty.cp-${size}`, { role: "img", "aria-label": "no card" }, h("span", "—"));
  const name = cardName(card);
  const shape = (SHAPES[card.object] || SHAPES[0])();
  return h(`figure.cp-card.cp-${size}`, {
    role: "img", "aria-label": name, title: name,
    dataset: { handle: card.handle, object: card.object, colour: card.colour },
  },
  h("svg", { viewBox: "0 0 100 100", "aria-hidden": "true", class: `cp-shape cp-colour-${card.colour}` }, shape),
  h("figcaption", name));
}
