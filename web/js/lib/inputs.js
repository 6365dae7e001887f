// web/js/lib/inputs.js — a form for any input of any game, built from its
// definition in GET /v1/games/{name} ("inputs": name, from, seated,
// fields with their types; docs/matches.md "Types").
//
// Each field gets a labelled control for its type: a number, a checkbox, a
// choice of the enum's names, of the match's seats (by player) or of the
// game's calls (by name); a list of seats is a group of checkboxes; any
// other list is typed comma-separated.  An optional field left empty is
// left out of the input, so the server's default applies (a call's open
// window, "now" for a press time).  read() gives the input's body,
// {"kind": name, …}, as POST /v1/matches/{id}/inputs takes it.
import { h } from "./dom.js";
import { words } from "./format.js";

// ctx: {info (the game), seats: [{seat, label}]}
export function inputForm(def, ctx, onSubmit) {
  const controls = [];
  if (def.seated) controls.push(seatControl({ name: "seat", doc: "The seat it acts for." }, ctx, false));
  for (const f of def.fields || []) controls.push(fieldControl(f, ctx));
  const form = h("form.input-form", { dataset: { input: def.name } },
    h("h3", words(def.name)),
    def.doc && h("p.muted", def.doc),
    controls.map((c) => c.el),
    h("button", { type: "submit" }, `Preview ${words(def.name).toLowerCase()}`));
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const body = { kind: def.name };
    for (const c of controls) {
      const v = c.read();
      if (v !== undefined) body[c.name] = v;
    }
    onSubmit(body);
  });
  return form;
}

function labelText(f) {
  return `${words(f.name)}${f.unit ? ` (${f.unit})` : ""}${f.optional ? " (optional)" : ""}`;
}

function fieldControl(f, ctx) {
  if (f.type === "seats" || (f.type === "seat" && f.max_count)) return seatsControl(f, ctx);
  if (f.type === "seat") return seatControl(f, ctx, f.optional);
  if (f.max_count) return listControl(f);
  if (f.type === "bool") {
    const input = h("input", { type: "checkbox", name: f.name });
    return { name: f.name, el: h("label.inline", input, labelText(f)), read: () => input.checked };
  }
  if (f.type === "enum" || f.type === "call") {
    const options = f.type === "call" ? (ctx.info.calls || []).map((c) => c.name) : f.choices || [];
    const select = h("select", { name: f.name, required: !f.optional },
      f.optional && h("option", { value: "" }, "—"), options.map((o) => h("option", { value: o }, o)));
    return { name: f.name, el: h("label", labelText(f), select), read: () => select.value || undefined };
  }
  if (["int", "time", "seq"].includes(f.type)) {
    const input = h("input", { type: "number", name: f.name, step: 1, required: !f.optional,
      min: f.min, max: f.max > Number.MAX_SAFE_INTEGER ? undefined : f.max });
    return { name: f.name, el: h("label", labelText(f), input),
      read: () => (input.value === "" ? undefined : Number(input.value)) };
  }
  const input = h("input", { type: "text", name: f.name, required: !f.optional });
  return { name: f.name, el: h("label", labelText(f), input), read: () => input.value || undefined };
}

function seatControl(f, ctx, optional) {
  const select = h("select", { name: f.name, required: !optional },
    optional && h("option", { value: "" }, "—"), ctx.seats.map((s) => h("option", { value: s.seat }, s.label)));
  return { name: f.name, el: h("label", labelText({ ...f, optional }), select),
    read: () => (select.value === "" ? undefined : Number(select.value)) };
}

function seatsControl(f, ctx) {
  const boxes = ctx.seats.map((s) => h("input", { type: "checkbox", name: f.name, value: s.seat }));
  return { name: f.name,
    el: h("fieldset", h("legend", labelText(f)), ctx.seats.map((s, i) => h("label.inline", boxes[i], s.label))),
    read: () => boxes.filter((b) => b.checked).map((b) => Number(b.value)) };
}

// A list of calls, numbers or names, typed comma-separated.
function listControl(f) {
  const input = h("input", { type: "text", name: f.name, placeholder: "comma-separated" });
  const numeric = ["int", "time", "seq", "bits"].includes(f.type);
  return { name: f.name, el: h("label", labelText(f), input),
    read: () => {
      const items = input.value.split(",").map((x) => x.trim()).filter(Boolean);
      if (!items.length) return f.optional ? undefined : [];
      return items.map((x) => (numeric ? Number(x) : x));
    } };
}
