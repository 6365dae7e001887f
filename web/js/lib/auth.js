// web/js/lib/auth.js — the token a page acts with.
//
// Pages set no cookies.  A token comes either from the address (a
// station's link carries its seat token as ?access_token=, docs/matches.md
// "Seat tokens") or is typed once (the referee console); either way it is
// kept in sessionStorage, which the browser forgets when the tab closes,
// and a token in the address is removed from it with history.replaceState
// so that it does not stay on screen, in the history or in a screenshot.
//
// One page, one token: a page calls useToken(key) once at start, with a
// key that names what the token is for ("referee", "station table=3
// seat=2"), and api.js and live.js use token() from then on.

let current = null;
let currentKey = null;
const PREFIX = "arbiter.token.";

export function useToken(key) {
  currentKey = PREFIX + key;
  const url = new URL(location.href);
  const fromUrl = url.searchParams.get("access_token");
  if (fromUrl) {
    store(currentKey, fromUrl);
    url.searchParams.delete("access_token");
    history.replaceState(history.state, "", url.pathname + url.search + url.hash);
  }
  current = load(currentKey);
  return current;
}

export function token() {
  return current;
}

export function setToken(value) {
  current = value || null;
  if (currentKey) store(currentKey, current);
}

export function forgetToken() {
  setToken(null);
}

// sessionStorage may be unavailable (a locked-down kiosk); the token then
// lasts as long as the page.
function store(key, value) {
  try {
    if (value) sessionStorage.setItem(key, value);
    else sessionStorage.removeItem(key);
  } catch { /* kept in memory only */ }
}

function load(key) {
  try {
    return sessionStorage.getItem(key);
  } catch {
    return null;
  }
}
