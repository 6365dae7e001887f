// web/js/lib/page.js — what every page does at start, and its address.
//
// Pages are addressed by query parameters (docs/web.md, "Pages"):
// ?match=, ?table=, ?seat= are positive whole numbers, ?obs=1 turns a
// display into an OBS browser source (transparent, no chrome).  The
// header's fullscreen button, where a page has one, uses the Fullscreen
// API; a display that cannot go fullscreen hides it.
import { h } from "./dom.js";

const params = new URLSearchParams(location.search);

// A positive whole number from the address, or null.
export function intParam(name) {
  const v = params.get(name);
  return v !== null && /^[1-9][0-9]{0,15}$/.test(v) ? Number(v) : null;
}

export function flagParam(name) {
  const v = params.get(name);
  return v === "1" || v === "true" || v === "yes";
}

// The page's address with some parameters changed (null removes one).
export function addressWith(changes) {
  const u = new URL(location.href);
  for (const [k, v] of Object.entries(changes)) {
    if (v === null || v === undefined) u.searchParams.delete(k);
    else u.searchParams.set(k, String(v));
  }
  return u.pathname + u.search;
}

export function startPage() {
  if (flagParam("obs")) document.documentElement.classList.add("obs");
  const fs = document.getElementById("fullscreen");
  if (fs) {
    if (!document.fullscreenEnabled) fs.hidden = true;
    fs.addEventListener("click", () => {
      if (document.fullscreenElement) document.exitFullscreen();
      else document.documentElement.requestFullscreen().catch(() => {});
    });
    document.addEventListener("fullscreenchange", () => {
      fs.textContent = document.fullscreenElement ? "Leave full screen" : "Full screen";
      fs.setAttribute("aria-pressed", String(Boolean(document.fullscreenElement)));
    });
  }
}

// A message in place of a page's content (nothing to show, a bad address).
export function notice(text, ...more) {
  return h("div.panel.notice", h("p", text), ...more);
}
