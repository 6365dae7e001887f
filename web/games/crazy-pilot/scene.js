// web/games/crazy-pilot/scene.js — a Crazy Pilot situation card drawn from
// its face: the scene as an inline SVG, the card's text under it.
//
// The engine writes a card's face (engine/crazy_cards.h,
// cz_card_face_visit): {handle, name, scene: {road, lanes, car_lane, light,
// sign, marking, items: [{kind, lane, row}]}}, every enum by its name.  The
// car drives up the picture from the bottom, in lane car_lane (1 the
// leftmost); lane 0 is the left verge and lanes + 1 the right one; row 1 is
// near the car, row 3 far.  A face never holds the answer: this file draws
// what a player would see on the printed card, nothing more.
//
// Every element is built with document.createElementNS (no markup strings);
// the card's words go in as text.  Colours are from the Okabe–Ito palette,
// and no element is told apart by its colour alone: a light is lit in its
// place (red on top, green at the bottom) and says its colour in words,
// every item has its own outline and a small label, every sign its words.
// A zombie walks with both arms straight ahead, torn and grey-green; the
// decoys look like people too, but a scarecrow stands on a pole with its
// arms out to both sides under a straw hat, and a mannequin stands on a
// stand, faceless.

const NS = "http://www.w3.org/2000/svg";

// The picture: the road area (RA wide) and, at its right, the column of
// the traffic light and the sign.
const RA = 320;                 // the road area's width
const SIDE = 110;               // the light and sign column
const W = RA + SIDE;
const H = 480;
const ROW_Y = { 1: 322, 2: 226, 3: 132 };       // item centres, near to far
const CAR_Y = 420;
const S = 1.4;                  // items are drawn in a 40-unit box, then scaled
const LANE_W = { 1: 96, 2: 84, 3: 70 };

// Okabe–Ito, and the greys of the road.
const C = {
  orange: "#E69F00", sky: "#56B4E9", green: "#009E73", yellow: "#F0E442",
  blue: "#0072B2", vermillion: "#D55E00", purple: "#CC79A7", black: "#000000",
  red: "#d7263d", amber: "#f5a300",
  road: "#4b5059", verge: "#6f8f4e", grass: "#58763b", white: "#f7f7f7", line: "#e8e8e8",
  skin: "#e9c39b", zombie: "#9fb58a", straw: "#d9b44a", brown: "#7a4a21", grey: "#9a9a9a",
};

// el("rect", {x: 1}, child…): one SVG element.
function el(tag, attrs, ...children) {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v !== null && v !== undefined && v !== false) e.setAttribute(k, String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

const OUT = { stroke: C.black, "stroke-width": 2, "stroke-linejoin": "round" };

// A label under an item: white with a dark halo, readable on any ground.
// A label wider than room (about 0.62 em a letter in bold) is squeezed to fit.
function label(x, y, text, size = 14, room = Infinity) {
  const fit = text.length * size * 0.62 > room;
  return el("text", {
    x, y, "text-anchor": "middle", "font-size": size, "font-weight": "bold", "font-family": "DejaVu Sans, sans-serif",
    fill: C.white, stroke: C.black, "stroke-width": 3.5, "paint-order": "stroke", class: "cz-label",
    textLength: fit ? room : null, lengthAdjust: fit ? "spacingAndGlyphs" : null,
  }, text);
}

// ---- people and animals (front or side view, feet at +22) ----------------

function person(body, { child = false } = {}) {
  const s = child ? 0.72 : 1;
  return el("g", { transform: `scale(${s}) translate(0 ${child ? 8 : 0})` },
    el("line", { x1: -5, y1: 8, x2: -7, y2: 24, stroke: C.black, "stroke-width": 4, "stroke-linecap": "round" }),
    el("line", { x1: 5, y1: 8, x2: 7, y2: 24, stroke: C.black, "stroke-width": 4, "stroke-linecap": "round" }),
    el("line", { x1: -9, y1: -10, x2: -12, y2: 6, stroke: C.black, "stroke-width": 4, "stroke-linecap": "round" }),
    el("line", { x1: 9, y1: -10, x2: 12, y2: 6, stroke: C.black, "stroke-width": 4, "stroke-linecap": "round" }),
    el("rect", { x: -9, y: -12, width: 18, height: 22, rx: 4, fill: body, ...OUT }),
    el("circle", { cx: 0, cy: -19, r: 7, fill: C.skin, ...OUT }));
}

// Walking to the left, both arms straight ahead, head forward, a torn hem.
function zombie() {
  return el("g", { class: "cz-zombie-figure" },
    el("line", { x1: -3, y1: 8, x2: -10, y2: 24, stroke: C.black, "stroke-width": 4, "stroke-linecap": "round" }),
    el("line", { x1: 4, y1: 8, x2: 9, y2: 24, stroke: C.black, "stroke-width": 4, "stroke-linecap": "round" }),
    el("path", { d: "M-8 -12 H8 V8 L5 4 L2 9 L-1 4 L-4 9 L-8 5 Z", fill: C.purple, ...OUT }),
    el("line", { x1: -2, y1: -9, x2: -26, y2: -9, stroke: C.zombie, "stroke-width": 5, "stroke-linecap": "round" }),
    el("line", { x1: -2, y1: -3, x2: -25, y2: -4, stroke: C.zombie, "stroke-width": 5, "stroke-linecap": "round" }),
    el("path", { d: "M-26 -11 l-3 -2 M-26 -9 l-4 0 M-25 -4 l-4 -1", stroke: C.black, "stroke-width": 1.5 }),
    el("circle", { cx: -4, cy: -20, r: 7, fill: C.zombie, ...OUT }),
    el("path", { d: "M-9 -22 l3 3 m0 -3 l-3 3 M-4 -22 l3 3 m0 -3 l-3 3", stroke: C.black, "stroke-width": 1.5 }),
    el("path", { d: "M-9 -15 h6", stroke: C.black, "stroke-width": 1.5 }));
}

// On a pole, arms out to both sides, a straw hat.
function scarecrow() {
  return el("g", { class: "cz-scarecrow-figure" },
    el("line", { x1: 0, y1: 0, x2: 0, y2: 25, stroke: C.brown, "stroke-width": 4 }),
    el("line", { x1: -24, y1: -8, x2: 24, y2: -8, stroke: C.brown, "stroke-width": 4 }),
    el("path", { d: "M-24 -8 l-4 -4 M-24 -8 l-5 1 M-24 -8 l-4 4 M24 -8 l4 -4 M24 -8 l5 1 M24 -8 l4 4", stroke: C.straw, "stroke-width": 2 }),
    el("path", { d: "M-9 -12 H9 L11 8 H-11 Z", fill: C.orange, ...OUT }),
    el("circle", { cx: 0, cy: -19, r: 7, fill: C.straw, ...OUT }),
    el("path", { d: "M-14 -23 H14 L8 -26 L5 -33 H-5 L-8 -26 Z", fill: C.straw, ...OUT }));
}

// Faceless, arms down, on a stand.
function mannequin() {
  return el("g", { class: "cz-mannequin-figure" },
    el("line", { x1: 0, y1: 6, x2: 0, y2: 22, stroke: C.black, "stroke-width": 3 }),
    el("ellipse", { cx: 0, cy: 23, rx: 11, ry: 3, fill: C.grey, ...OUT }),
    el("line", { x1: -9, y1: -10, x2: -11, y2: 6, stroke: C.skin, "stroke-width": 5, "stroke-linecap": "round" }),
    el("line", { x1: 9, y1: -10, x2: 11, y2: 6, stroke: C.skin, "stroke-width": 5, "stroke-linecap": "round" }),
    el("path", { d: "M-9 -12 H9 L6 -1 L9 8 H-9 L-6 -1 Z", fill: C.skin, ...OUT }),
    el("ellipse", { cx: 0, cy: -19, rx: 6, ry: 7, fill: C.skin, ...OUT }));
}

function dog() {
  return el("g", {},
    el("path", { d: "M-16 2 H10 V12 H-16 Z", fill: C.brown, ...OUT }),
    el("path", { d: "M-14 12 v10 M-8 12 v10 M4 12 v10 M9 12 v10", stroke: C.black, "stroke-width": 3 }),
    el("path", { d: "M-16 4 L-24 -4", stroke: C.black, "stroke-width": 3, "stroke-linecap": "round" }),
    el("path", { d: "M8 -8 H20 L22 0 H14 L12 4 H6 Z", fill: C.brown, ...OUT }),
    el("path", { d: "M9 -8 L7 -14 L13 -9", fill: C.black }));
}

function cow() {
  return el("g", {},
    el("rect", { x: -22, y: -6, width: 36, height: 20, rx: 5, fill: C.white, ...OUT }),
    el("ellipse", { cx: -12, cy: 0, rx: 5, ry: 4, fill: C.black }),
    el("ellipse", { cx: 4, cy: 7, rx: 6, ry: 4, fill: C.black }),
    el("path", { d: "M-18 14 v9 M-10 14 v9 M4 14 v9 M10 14 v9", stroke: C.black, "stroke-width": 3 }),
    el("rect", { x: 12, y: -14, width: 13, height: 14, rx: 4, fill: C.white, ...OUT }),
    el("path", { d: "M13 -14 l-3 -6 M24 -14 l3 -6", stroke: C.black, "stroke-width": 2.5 }),
    el("rect", { x: 14, y: -4, width: 10, height: 5, rx: 2, fill: C.purple, ...OUT }));
}

// ---- vehicles (from above, driving up) --------------------------------------

function carShape(fill, { big = false } = {}) {
  const w = big ? 34 : 28;
  const hgt = big ? 54 : 44;
  return el("g", {},
    el("rect", { x: -w / 2, y: -hgt / 2, width: w, height: hgt, rx: 8, fill, ...OUT }),
    el("rect", { x: -w / 2 + 4, y: -hgt / 2 + 8, width: w - 8, height: 9, rx: 2, fill: C.black }),
    el("rect", { x: -w / 2 + 4, y: hgt / 2 - 12, width: w - 8, height: 6, rx: 2, fill: C.black }));
}

function truck() {
  return el("g", {},
    el("rect", { x: -15, y: -22, width: 30, height: 14, rx: 3, fill: C.orange, ...OUT }),
    el("rect", { x: -11, y: -20, width: 22, height: 5, fill: C.black }),
    el("rect", { x: -16, y: -6, width: 32, height: 32, rx: 2, fill: C.grey, ...OUT }),
    el("path", { d: "M-16 4 H16 M-16 14 H16", stroke: C.black, "stroke-width": 1 }));
}

function bus() {
  return el("g", {},
    el("rect", { x: -16, y: -28, width: 32, height: 56, rx: 5, fill: C.yellow, ...OUT }),
    el("rect", { x: -12, y: -24, width: 24, height: 6, fill: C.black }),
    [...Array(4)].map((_, i) => el("rect", { x: -13, y: -14 + i * 10, width: 5, height: 7, fill: C.blue })),
    [...Array(4)].map((_, i) => el("rect", { x: 8, y: -14 + i * 10, width: 5, height: 7, fill: C.blue })));
}

function tractor() {
  return el("g", {},
    el("rect", { x: -22, y: 2, width: 10, height: 20, rx: 2, fill: C.black }),
    el("rect", { x: 12, y: 2, width: 10, height: 20, rx: 2, fill: C.black }),
    el("rect", { x: -16, y: -20, width: 6, height: 10, rx: 1, fill: C.black }),
    el("rect", { x: 10, y: -20, width: 6, height: 10, rx: 1, fill: C.black }),
    el("rect", { x: -11, y: -24, width: 22, height: 24, rx: 3, fill: C.green, ...OUT }),
    el("rect", { x: -12, y: 0, width: 24, height: 20, rx: 2, fill: C.green, ...OUT }),
    el("rect", { x: -8, y: 4, width: 16, height: 10, fill: C.black }));
}

function bicycle() {
  return el("g", {},
    el("circle", { cx: -13, cy: 10, r: 9, fill: "none", stroke: C.black, "stroke-width": 3 }),
    el("circle", { cx: 13, cy: 10, r: 9, fill: "none", stroke: C.black, "stroke-width": 3 }),
    el("path", { d: "M-13 10 L-4 -4 H9 L13 10 M-4 -4 L0 10 L9 -4 M9 -4 L7 -10 H12", fill: "none", stroke: C.blue, "stroke-width": 3 }),
    el("circle", { cx: -2, cy: -18, r: 5, fill: C.skin, ...OUT }),
    el("path", { d: "M-2 -13 L-4 -4 M-2 -12 L8 -8", stroke: C.vermillion, "stroke-width": 4, "stroke-linecap": "round" }));
}

// ---- things on the road --------------------------------------------------------

function ball() {
  return el("g", {},
    el("circle", { cx: 0, cy: 8, r: 12, fill: C.white, ...OUT }),
    el("path", { d: "M-12 8 Q0 -2 12 8 M-9 16 Q0 6 9 16", fill: "none", stroke: C.vermillion, "stroke-width": 3 }));
}

function cone() {
  return el("g", {},
    el("rect", { x: -14, y: 18, width: 28, height: 5, fill: C.orange, ...OUT }),
    el("path", { d: "M-10 18 L-3 -16 H3 L10 18 Z", fill: C.orange, ...OUT }),
    el("path", { d: "M-7 5 H7 M-5 -5 H5", stroke: C.white, "stroke-width": 4 }));
}

function roadworks() {
  const stripes = [...Array(5)].map((_, i) => el("path", {
    d: `M${-26 + i * 11} -4 l8 0 l-8 12 l-8 0 Z`, fill: C.vermillion,
  }));
  return el("g", {},
    el("path", { d: "M-20 8 v16 M20 8 v16", stroke: C.black, "stroke-width": 3 }),
    el("rect", { x: -26, y: -4, width: 52, height: 12, fill: C.white, ...OUT }),
    stripes,
    el("rect", { x: -26, y: -4, width: 52, height: 12, fill: "none", ...OUT }),
    el("path", { d: "M0 -26 L13 -7 H-13 Z", fill: C.yellow, ...OUT }),
    el("path", { d: "M-5 -11 l5 -7 l5 7", fill: "none", stroke: C.black, "stroke-width": 2 }));
}

// Fallen across its lane.
function tree(width) {
  const half = Math.max(24, width / 2 - 2);
  return el("g", {},
    el("rect", { x: -half, y: 0, width: 2 * half - 12, height: 9, rx: 3, fill: C.brown, ...OUT }),
    el("circle", { cx: half - 14, cy: 4, r: 14, fill: C.green, ...OUT }),
    el("circle", { cx: half - 4, cy: -6, r: 9, fill: C.green, ...OUT }));
}

function rock() {
  return el("path", { d: "M-20 20 L-22 4 L-10 -12 L6 -14 L20 -2 L22 20 Z", fill: C.grey, ...OUT },
  );
}

function hole() {
  return el("g", {},
    el("ellipse", { cx: 0, cy: 6, rx: 24, ry: 13, fill: "#1b1b1b", stroke: "#8a6d3b", "stroke-width": 4 }),
    el("path", { d: "M-24 6 l-5 -4 M24 6 l5 -5 M0 -7 l2 -6", stroke: "#8a6d3b", "stroke-width": 2 }));
}

function flood(width) {
  const half = Math.max(24, width / 2 - 2);
  const wave = (y) => `M${-half} ${y} ` + [...Array(4)].map((_, i) => {
    const x = -half + (i + 1) * (half / 2);
    return `Q${x - half / 4} ${y - 6} ${x} ${y}`;
  }).join(" ");
  return el("g", {},
    el("rect", { x: -half, y: -10, width: 2 * half, height: 32, rx: 12, fill: C.sky, ...OUT }),
    el("path", { d: `${wave(0)} ${wave(10)}`, fill: "none", stroke: C.blue, "stroke-width": 3 }));
}

// Huge: across every lane.
function monster(width) {
  const half = width / 2;
  return el("g", {},
    el("path", { d: `M${-half} 28 V-6 Q${-half} -34 0 -36 Q${half} -34 ${half} -6 V28 Z`, fill: C.purple, ...OUT }),
    el("circle", { cx: -half / 3, cy: -14, r: 9, fill: C.white, ...OUT }),
    el("circle", { cx: half / 3, cy: -14, r: 9, fill: C.white, ...OUT }),
    el("circle", { cx: -half / 3, cy: -12, r: 4, fill: C.black }),
    el("circle", { cx: half / 3, cy: -12, r: 4, fill: C.black }),
    el("path", { d: `M${-half / 2} 6 H${half / 2} l-8 10 l-8 -10 l-8 10 l-8 -10 l-8 10 l-8 -10`, fill: C.white, ...OUT }),
    el("path", { d: `M${-half + 6} -20 l-10 -16 M${half - 6} -20 l10 -16`, stroke: C.black, "stroke-width": 4, "stroke-linecap": "round" }));
}

// A train across the whole road (on a level crossing).
function train() {
  return el("g", {},
    el("rect", { x: -RA / 2 + 2, y: -16, width: RA - 4, height: 30, rx: 6, fill: C.vermillion, ...OUT }),
    [...Array(7)].map((_, i) => el("rect", { x: -RA / 2 + 22 + i * 42, y: -10, width: 22, height: 10, fill: C.white, ...OUT })),
    el("path", { d: `M${-RA / 2 + 2} 8 H${RA / 2 - 2}`, stroke: C.black, "stroke-width": 2 }));
}

// kind → (drawn at the item's centre; width: the lane's) and its label.
const ITEMS = {
  car: { draw: () => carShape(C.sky), label: "car" },
  truck: { draw: truck, label: "truck" },
  bus: { draw: bus, label: "bus" },
  tractor: { draw: tractor, label: "tractor" },
  bicycle: { draw: bicycle, label: "cyclist" },
  pedestrian: { draw: () => person(C.blue), label: "pedestrian" },
  child: { draw: () => person(C.orange, { child: true }), label: "child" },
  dog: { draw: dog, label: "dog" },
  cow: { draw: cow, label: "cow" },
  ball: { draw: ball, label: "ball" },
  cone: { draw: cone, label: "cone" },
  roadworks: { draw: roadworks, label: "roadworks" },
  tree: { draw: tree, label: "fallen tree" },
  rock: { draw: rock, label: "rock" },
  hole: { draw: hole, label: "hole" },
  flood: { draw: flood, label: "flood" },
  monster: { draw: monster, label: "MONSTER", wide: true },
  train: { draw: train, label: "train", across: true },
  zombie: { draw: zombie, label: "zombie" },
  scarecrow: { draw: scarecrow, label: "scarecrow" },
  mannequin: { draw: mannequin, label: "mannequin" },
};

export const ITEM_KINDS = Object.keys(ITEMS);

// ---- the road --------------------------------------------------------------

function geometry(scene) {
  const lanes = Math.min(3, Math.max(1, scene.lanes | 0 || 1));
  const laneW = LANE_W[lanes];
  const x0 = RA / 2 - (lanes * laneW) / 2;
  const x1 = x0 + lanes * laneW;
  return {
    lanes, laneW, x0, x1,
    laneX(lane) {
      if (lane <= 0) return x0 / 2;
      if (lane > lanes) return (x1 + RA) / 2;
      return x0 + (lane - 0.5) * laneW;
    },
    laneWidth(lane) { return lane <= 0 || lane > lanes ? x0 : laneW; },
  };
}

function road(scene, g) {
  const { x0, x1, lanes, laneW } = g;
  const kind = scene.road;
  // where the straight road stops at the top
  const top = kind === "t_junction" ? 16 : kind === "dead_end" ? 78 : 0;
  const parts = [el("rect", { x: 0, y: 0, width: RA, height: H, fill: C.grass })];
  // the verges, a lighter strip beside the road
  parts.push(el("rect", { x: 0, y: top, width: x0, height: H - top, fill: C.verge }),
    el("rect", { x: x1, y: top, width: RA - x1, height: H - top, fill: C.verge }));
  if (kind === "fork_left" || kind === "fork_right") {
    // a branch as wide as a lane, leaving the road ahead and bending away
    const left = kind === "fork_left";
    const sx = left ? x0 + laneW / 2 : x1 - laneW / 2;
    const ex = left ? -laneW : RA + laneW;
    const d = `M${sx} ${ROW_Y[2] + 40} C${sx} ${ROW_Y[3]} ${left ? sx - 30 : sx + 30} 60 ${ex} 20`;
    parts.push(el("path", { d, fill: "none", stroke: C.line, "stroke-width": laneW + 4, class: "cz-branch" }),
      el("path", { d, fill: "none", stroke: C.road, "stroke-width": laneW }));
  }
  parts.push(el("rect", { x: x0, y: top, width: x1 - x0, height: H - top, fill: C.road }));
  if (kind === "crossroads" || kind === "t_junction") {
    parts.push(el("rect", { x: 0, y: kind === "t_junction" ? 16 : 18, width: RA, height: 64, fill: C.road, class: "cz-cross" }));
    // give-way line where the car's road meets the other one
    parts.push(el("path", { d: `M${x0} 86 H${x1}`, stroke: C.line, "stroke-width": 3, "stroke-dasharray": "8 6" }));
    if (kind === "t_junction") parts.push(el("rect", { x: 0, y: 0, width: RA, height: 16, fill: C.grass }));
  }
  // the lane lines, dashed, and the road's edges
  const from = kind === "crossroads" || kind === "t_junction" ? 90 : top;
  for (let i = 1; i < lanes; i++) {
    const x = x0 + i * laneW;
    parts.push(el("path", { d: `M${x} ${from} V${H}`, stroke: C.line, "stroke-width": 3, "stroke-dasharray": "18 14" }));
  }
  parts.push(el("path", { d: `M${x0 + 2} ${from} V${H} M${x1 - 2} ${from} V${H}`, stroke: C.line, "stroke-width": 2 }));
  if (kind === "crossroads") parts.push(el("path", { d: `M${x0 + 2} 0 V18 M${x1 - 2} 0 V18`, stroke: C.line, "stroke-width": 2 }));
  if (kind === "dead_end") {
    // a brick wall across the end of the road, and the words
    const wx = x0 - 10;
    const ww = x1 - x0 + 20;
    const bricks = [];
    for (let r = 0; r < 3; r++) {
      for (let x = wx + (r % 2 ? -12 : 0); x < wx + ww; x += 24) {
        const bx = Math.max(wx, x);
        bricks.push(el("rect", { x: bx, y: top - 24 + r * 9, width: Math.min(x + 24, wx + ww) - bx, height: 9,
          fill: "#a0522d", stroke: "#e8d8c8", "stroke-width": 1.5 }));
      }
    }
    parts.push(bricks, el("rect", { x: wx, y: top - 24, width: ww, height: 27, fill: "none", ...OUT }),
      label(RA / 2, top - 32, "DEAD END", 14));
  }
  return el("g", { class: `cz-road cz-road-${kind}`, "data-road": kind }, parts);
}

// A zebra crossing lies across row 1 (people wait at it on the verges, or
// cross on it); a level crossing's rails across row 2, where a train passes.
function marking(scene, g) {
  const { x0, x1 } = g;
  if (scene.marking === "zebra") {
    const y = ROW_Y[1];
    const n = Math.floor((x1 - x0) / 14);
    return el("g", { class: "cz-marking", "data-marking": "zebra" },
      [...Array(n)].map((_, i) => el("rect", { x: x0 + 4 + i * 14, y: y - 22, width: 8, height: 44, fill: C.white })));
  }
  if (scene.marking === "level_crossing") {
    const y = ROW_Y[2];
    const ties = [...Array(Math.floor(RA / 18))].map((_, i) => el("rect", { x: 4 + i * 18, y: y - 14, width: 7, height: 28, fill: C.brown }));
    return el("g", { class: "cz-marking", "data-marking": "level_crossing" },
      ties,
      el("path", { d: `M0 ${y - 8} H${RA} M0 ${y + 8} H${RA}`, stroke: "#c9c9c9", "stroke-width": 4 }),
      // its sign, the St Andrew's cross, at the foot of the side column
      el("g", { transform: `translate(${RA + SIDE / 2} ${H - 70})` },
        el("path", { d: "M-22 -14 L22 14 M-22 14 L22 -14", stroke: C.white, "stroke-width": 11 }),
        el("path", { d: "M-22 -14 L22 14 M-22 14 L22 -14", stroke: C.red, "stroke-width": 5 }),
        label(0, 38, "RAILWAY", 12)));
  }
  return null;
}

// ---- the light and the sign, in the side column ---------------------------------

function light(scene) {
  const on = scene.light;
  if (!on || on === "none") return null;
  const lamps = [["red", C.red], ["amber", C.amber], ["green", C.green]];
  return el("g", { class: "cz-light", "data-light": on, transform: `translate(${RA + SIDE / 2} 30)` },
    el("rect", { x: -3, y: 100, width: 6, height: 30, fill: "#333" }),
    el("rect", { x: -22, y: 0, width: 44, height: 104, rx: 8, fill: "#1d1d1d", stroke: C.white, "stroke-width": 2 }),
    lamps.map(([name, colour], i) => el("circle", {
      cx: 0, cy: 18 + i * 34, r: 13,
      fill: name === on ? colour : "#3a3a3a", stroke: name === on ? C.white : "#555", "stroke-width": name === on ? 3 : 1,
    })),
    label(0, 150, `${on} light`.toUpperCase(), 13));
}

function sign(scene) {
  const s = scene.sign;
  if (!s || s === "none") return null;
  const y = scene.light && scene.light !== "none" ? 260 : 90;
  const ring = (inner) => [el("circle", { r: 28, fill: C.white, stroke: C.red, "stroke-width": 7 }), inner];
  const arrow = (dir) => el("path", {
    d: dir === "left" ? "M12 -12 L-8 8 M-8 8 V-4 M-8 8 H4" : "M-12 -12 L8 8 M8 8 V-4 M8 8 H-4",
    stroke: C.white, "stroke-width": 6, fill: "none", "stroke-linecap": "round", "stroke-linejoin": "round",
  });
  const shapes = {
    stop: [el("polygon", { points: "-12,-29 12,-29 29,-12 29,12 12,29 -12,29 -29,12 -29,-12", fill: C.red, stroke: C.white, "stroke-width": 3 }),
      el("text", { y: 6, "text-anchor": "middle", "font-size": 15, "font-weight": "bold", fill: C.white, "font-family": "DejaVu Sans, sans-serif" }, "STOP")],
    give_way: [el("polygon", { points: "-30,-24 30,-24 0,28", fill: C.white, stroke: C.red, "stroke-width": 6, "stroke-linejoin": "round" })],
    no_entry: [el("circle", { r: 29, fill: C.red, stroke: C.white, "stroke-width": 2 }),
      el("rect", { x: -19, y: -5, width: 38, height: 10, fill: C.white })],
    road_closed: ring(null),
    keep_left: [el("circle", { r: 29, fill: C.blue, stroke: C.white, "stroke-width": 2 }), arrow("left")],
    keep_right: [el("circle", { r: 29, fill: C.blue, stroke: C.white, "stroke-width": 2 }), arrow("right")],
    speed_limit: ring(el("text", { y: 8, "text-anchor": "middle", "font-size": 22, "font-weight": "bold", fill: C.black, "font-family": "DejaVu Sans, sans-serif" }, "50")),
  };
  const words = { stop: "STOP", give_way: "GIVE WAY", no_entry: "NO ENTRY", road_closed: "ROAD CLOSED",
    keep_left: "KEEP LEFT", keep_right: "KEEP RIGHT", speed_limit: "LIMIT 50" };
  return el("g", { class: "cz-sign", "data-sign": s, transform: `translate(${RA + SIDE / 2} ${y})` },
    el("rect", { x: -3, y: 28, width: 6, height: 40, fill: "#333" }),
    shapes[s] || [el("circle", { r: 28, fill: C.white, ...OUT })],
    label(0, 86, words[s] || s.replace(/_/g, " ").toUpperCase(), 12));
}

// ---- items and the car --------------------------------------------------------------

function item(it, g) {
  const def = ITEMS[it.kind] || { draw: () => el("circle", { r: 14, fill: C.white, ...OUT }), label: String(it.kind) };
  const row = Math.min(3, Math.max(1, it.row | 0 || 1));
  const y = ROW_Y[row];
  let x = g.laneX(it.lane);
  let width = g.laneWidth(it.lane);
  let body;
  if (def.wide) {
    x = RA / 2;
    body = def.draw(g.x1 - g.x0 + 16);
  } else if (def.across) {
    x = RA / 2;
    body = def.draw(RA);
  } else {
    const k = Math.min(S, width / 44);     // a narrow verge draws smaller
    body = el("g", { transform: `scale(${k.toFixed(3)})` }, def.draw(width / k));
  }
  return el("g", {
    class: `cz-item cz-item-${it.kind}`, "data-kind": it.kind, "data-lane": it.lane, "data-row": row,
    transform: `translate(${x} ${y})`,
  }, body, label(0, def.wide ? 46 : 48, def.label, 14, def.wide || def.across ? Infinity : width - 4));
}

function ownCar(scene, g) {
  const lane = Math.min(g.lanes, Math.max(1, scene.car_lane | 0 || 1));
  return el("g", { class: "cz-car", "data-lane": lane, transform: `translate(${g.laneX(lane)} ${CAR_Y})` },
    el("g", { transform: "scale(1.2)" }, carShape(C.yellow, { big: true }),
      el("path", { d: "M0 -40 l-9 10 h18 Z", fill: C.yellow, ...OUT })),
    label(0, 50, "YOU", 15));
}

// The scene as an SVG element: the road, its marking, the items by row
// (far first, so nearer ones overlap them), the car, the light and sign.
// No role of its own: the figure around it names it.
export function sceneSvg(scene) {
  const s = scene || {};
  const g = geometry(s);
  const items = [...(s.items || [])].sort((a, b) => (b.row | 0) - (a.row | 0));
  return el("svg", {
    viewBox: `0 0 ${W} ${H}`, class: "cz-scene", "aria-hidden": "true", focusable: "false",
    "data-road": s.road, "data-lanes": g.lanes, "data-light": s.light || "none", "data-sign": s.sign || "none",
  },
  road(s, g), marking(s, g),
  el("rect", { x: RA, y: 0, width: SIDE, height: H, fill: "#263247" }),
  items.map((it) => item(it, g)),
  ownCar(s, g), light(s), sign(s));
}

// The card's text: its name, or its scene's parts in words.
export function sceneText(card) {
  if (!card) return "no card";
  if (typeof card.name === "string" && card.name) return card.name;
  const s = card.scene;
  if (!s) return `card ${card.handle}`;
  const items = (s.items || []).map((i) => (ITEMS[i.kind] || { label: i.kind }).label.toLowerCase());
  return [`${String(s.road).replace(/_/g, " ")} road`, items.length ? items.join(", ") : null].filter(Boolean).join(": ");
}

// A card as a figure: the scene, the card's text under it.  size: "big"
// (a station's face-up card), "mid" (the table's), "small" (a front card).
export function cardFigure(card, size = "big") {
  const fig = document.createElement("figure");
  fig.classList.add("cz-card", `cz-${size}`);
  if (!card) {
    fig.classList.add("cz-empty");
    fig.setAttribute("role", "img");
    fig.setAttribute("aria-label", "no card");
    fig.append(document.createTextNode("—"));
    return fig;
  }
  const text = sceneText(card);
  fig.setAttribute("role", "img");
  fig.setAttribute("aria-label", text);
  if (card.handle) fig.dataset.handle = card.handle;
  const cap = document.createElement("figcaption");
  cap.textContent = text;
  fig.append(sceneSvg(card.scene), cap);
  return fig;
}
