// web/js/lib/follow.js — following a match, and a table from match to
// match, live.
//
// A MatchFeed keeps one match's view for one audience (docs/matches.md,
// "Views"): the public's, a seat's or the referee's, each from its own
// route and its own stream, so a station never reads another seat's view.
// Every event asks for the view again (coalesced: live.js coalesce()) and
// is handed to the page first, for what a view does not keep (a verdict to
// announce).  A finished match has no live view any more; the feed keeps
// the last one it saw, which is the final table.
//
// A TableFeed follows a table (GET /v1/tables/{id}, its stream
// table/<id>): the page is told the table's live match when it starts,
// when one is created, and that one ended.
import * as api from "./api.js";
import { LiveStream, coalesce, markStale } from "./live.js";

// A failed fetch (arbiterd away, or rebuilding its matches: 503) is tried
// again after this long, and the page shows its data as stale meanwhile.
const REFETCH_MS = 1000;

export class MatchFeed {
  // opts: audience ("public", "seat", "referee"), seat (for "seat"),
  // names (the event names), onData(view, match), onEvent(ev), onError(e)
  // when the token is refused (401, 403).
  constructor(id, opts) {
    this.id = id;
    this.opts = { audience: "public", ...opts };
    this.view = null;
    this.match = null;
    this.matchReadable = true;
    this.timer = null;
    this.refresh = coalesce(() => this.fetch());
    const base = `/v1/matches/${id}`;
    const streamPath = {
      public: `${base}/events`,
      seat: `${base}/seats/${this.opts.seat}/events`,
      referee: `${base}/referee/events`,
    }[this.opts.audience];
    this.stream = new LiveStream(streamPath, opts.names, {
      open: () => this.refresh(),
      reset: () => this.refresh(),
      event: (name, data) => {
        if (data && this.opts.onEvent) this.opts.onEvent(data);
        this.refresh();
      },
    });
  }

  start() {
    this.stream.start();
    return this;
  }

  stop() {
    this.stream.stop();
    clearTimeout(this.timer);
    markStale(this, false);
    this.stopped = true;
  }

  async fetch() {
    if (this.stopped) return;
    const base = `/v1/matches/${this.id}`;
    try {
      const [match, view] = await Promise.all([this.fetchMatch(base), this.fetchView(base)]);
      if (this.stopped) return;
      if (match) this.match = match;
      const v = this.opts.audience === "public" ? match && match.view : view;
      if (v) this.view = v;
      markStale(this, false);
      this.opts.onData(this.view, this.match);
    } catch (e) {
      if (e.status === 0 || e.status >= 500) {
        markStale(this, true);
        clearTimeout(this.timer);
        this.timer = setTimeout(() => this.refresh(), REFETCH_MS);
      } else if (e.status === 401 || e.status === 403) {
        this.opts.onError?.(e);
      }
      throw e;
    }
  }

  // The match resource: players' names, state, result; its public view.
  // A station's token may not read it where reads are closed; the page
  // then goes on with seat numbers.
  async fetchMatch(base) {
    if (!this.matchReadable) return null;
    try {
      return await api.get(base);
    } catch (e) {
      if (e.status === 401 || e.status === 403) {
        this.matchReadable = false;
        return null;
      }
      throw e;
    }
  }

  // The audience's own view.  Only a live match has one: a finished or
  // aborted match answers 404 or 409, and the last view seen stays.  A
  // station's token reads its seat only while the match is live, so a 403
  // after a view was seen is the match ending too, not a token refused.
  async fetchView(base) {
    const { audience, seat } = this.opts;
    try {
      if (audience === "seat") return await api.get(`${base}/seats/${seat}`);
      if (audience === "referee") return (await api.get(`${base}/referee`)).view;
      return null;      // the public view comes with the match
    } catch (e) {
      if (e.status === 404 || e.status === 409 || (e.status === 403 && this.view)) return null;
      throw e;
    }
  }
}

export class TableFeed {
  // opts: onMatch(matchId, table) when the table's live match is known or
  // changes (never with null: a table whose match ended keeps it on show
  // until the next), onIdle(table) when it has none, onEnded(ev) with
  // match_ended's data, onError(e) when the token is refused.
  constructor(id, opts) {
    this.id = id;
    this.opts = opts;
    this.table = null;
    this.timer = null;
    this.refresh = coalesce(() => this.fetch());
    this.stream = new LiveStream(`/v1/tables/${id}/events`, ["match_created", "match_ended"], {
      open: () => this.refresh(),
      reset: () => this.refresh(),
      event: (name, data) => {
        if (name === "match_created" && data) this.opts.onMatch(data.match, this.table);
        if (name === "match_ended" && data) this.opts.onEnded?.(data);
      },
    });
  }

  start() {
    this.stream.start();
    return this;
  }

  async fetch() {
    try {
      this.table = await api.get(`/v1/tables/${this.id}`);
      markStale(this, false);
      if (this.table.match) this.opts.onMatch(this.table.match, this.table);
      else this.opts.onIdle?.(this.table);
    } catch (e) {
      if (e.status === 0 || e.status >= 500) {
        markStale(this, true);
        clearTimeout(this.timer);
        this.timer = setTimeout(() => this.refresh(), REFETCH_MS);
      } else if (e.status === 401 || e.status === 403) {
        this.opts.onError?.(e);
      }
      throw e;
    }
  }
}
