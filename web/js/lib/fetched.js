// web/js/lib/fetched.js — one piece of a page's state: fetched over REST,
// drawn, and fetched again when the page's stream says it changed.
//
// fetched(load, draw, {onError}) returns refresh(): load() (a promise of
// the data) then draw(data), coalesced (live.js coalesce(): one request in
// flight and one after it).  A failure that means arbiterd is away or
// busy (status 0, 5xx) marks the page stale (live.js markStale: greyed,
// "Reconnecting…") and tries again after REFETCH_MS until it succeeds; any
// other failure (a 404, a 409 such as "the bracket is drawn when the stage
// starts") goes to onError(e), for the page to say.  This is what
// follow.js does for matches, for the tournament pages' many parts.
import { coalesce, markStale } from "./live.js";

const REFETCH_MS = 1000;

export function fetched(load, draw, { onError } = {}) {
  const owner = {};
  let timer = null;
  const refresh = coalesce(async () => {
    clearTimeout(timer);
    try {
      const data = await load();
      markStale(owner, false);
      draw(data);
    } catch (e) {
      if (e.status === undefined) throw e;            // a bug in draw(), not the network
      if (e.status === 0 || e.status >= 500) {
        markStale(owner, true);
        timer = setTimeout(refresh, REFETCH_MS);
        return;
      }
      markStale(owner, false);
      if (onError) onError(e);
      else throw e;
    }
  });
  return refresh;
}
