// web/js/lib/live.js — live data: Server-Sent Events streams that stay up,
// and how their state shows on the page.
//
// A LiveStream is one EventSource on an arbiterd stream (docs/openapi.yaml,
// GET /v1/events: ids, "reset", "overflow").  The page keeps its state from
// REST and the stream tells it when to look again:
//
//   connecting --open--> live --error/overflow--> reconnecting --open--> live
//        (open: handlers.open(), the page fetches its state over REST)
//
// - Resuming.  Every event's id is remembered; a new connection asks for
//   the events after it with ?last_event_id= (the server replays what it
//   kept, so no announcement is lost), or gets "reset" when it cannot (the
//   daemon restarted, or the gap is too old): handlers.reset(), the page
//   fetches its state again.
// - Errors.  On any error, and on "overflow" (the stream fell behind and
//   ends), the EventSource is closed and a new one made after a backoff
//   (BACKOFF_MIN_MS doubling to BACKOFF_MAX_MS).  EventSource would retry
//   a network error by itself, but not an HTTP error (a 503 while the
//   daemon starts), so one path handles both.
// - Tokens.  EventSource cannot send headers: the page's token goes as
//   ?access_token= (RFC 6750 section 2.3), which arbiterd accepts on reads.
// - What shows.  <body data-connection="connecting|live|reconnecting"> is
//   the worst state of the page's streams, and #connection says it in
//   words; theme.css greys .live-data while not live, so nobody reads stale
//   data as current.
//
// Named events do not reach EventSource.onmessage, so a stream is told the
// names it listens to (games.js eventNames() has every game's).
import { token } from "./auth.js";

const BACKOFF_MIN_MS = 500;
const BACKOFF_MAX_MS = 8000;

const streams = new Set();

export class LiveStream {
  // handlers: event(name, data, id), open(), reset(data): all optional.
  constructor(path, names, handlers = {}) {
    this.path = path;
    this.names = [...new Set(names)];
    this.handlers = handlers;
    this.lastId = null;
    this.state = "connecting";
    this.source = null;
    this.timer = null;
    this.backoff = BACKOFF_MIN_MS;
  }

  start() {
    streams.add(this);
    this.connect();
    showState();
    return this;
  }

  stop() {
    clearTimeout(this.timer);
    if (this.source) this.source.close();
    this.source = null;
    streams.delete(this);
    showState();
  }

  url() {
    const u = new URL(this.path, location.href);
    if (this.lastId) u.searchParams.set("last_event_id", this.lastId);
    const t = token();
    if (t) u.searchParams.set("access_token", t);
    return u.pathname + u.search;
  }

  connect() {
    const source = new EventSource(this.url());
    this.source = source;
    source.addEventListener("open", () => {
      this.backoff = BACKOFF_MIN_MS;
      this.setState("live");
      this.handlers.open?.();
    });
    source.addEventListener("error", () => this.retry());
    source.addEventListener("overflow", () => this.retry());
    source.addEventListener("reset", (e) => {
      if (e.lastEventId) this.lastId = e.lastEventId;
      this.handlers.reset?.(parse(e.data));
    });
    for (const name of this.names) {
      source.addEventListener(name, (e) => {
        if (e.lastEventId) this.lastId = e.lastEventId;
        this.handlers.event?.(name, parse(e.data), e.lastEventId);
      });
    }
  }

  retry() {
    if (this.source) this.source.close();
    this.source = null;
    this.setState("reconnecting");
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.connect(), this.backoff);
    this.backoff = Math.min(this.backoff * 2, BACKOFF_MAX_MS);
  }

  setState(state) {
    this.state = state;
    showState();
  }
}

function parse(data) {
  try {
    return JSON.parse(data);
  } catch {
    return null;
  }
}

// Data a page could not fetch (arbiterd down or still rebuilding its
// matches after a restart) counts as a stream reconnecting: what is on
// screen is stale until the fetch succeeds.
const stale = new Set();
export function markStale(owner, isStale) {
  if (isStale) stale.add(owner);
  else stale.delete(owner);
  showState();
}

const RANK = { live: 0, connecting: 1, reconnecting: 2 };
const WORDS = { live: "Live", connecting: "Connecting…", reconnecting: "Reconnecting…" };

function showState() {
  let worst = "live";
  for (const s of streams) if (RANK[s.state] > RANK[worst]) worst = s.state;
  if (streams.size === 0) worst = "connecting";
  if (stale.size && worst === "live") worst = "reconnecting";
  document.body.dataset.connection = worst;
  const el = document.getElementById("connection");
  if (el && el.textContent !== WORDS[worst]) el.textContent = WORDS[worst];
}

// Runs fn at most once at a time: a call while it runs makes it run once
// more afterwards.  Live pages refetch a view on every event; this keeps a
// burst of events to one request in flight and one after it, and the last
// run always starts after the last event.
export function coalesce(fn) {
  let running = false;
  let again = false;
  return async function run() {
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      do {
        again = false;
        try {
          await fn();
        } catch (e) {
          console.warn(e);
        }
      } while (again);
    } finally {
      running = false;
    }
  };
}
