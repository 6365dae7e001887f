"""tests/web/tourney.py — tournaments set up and played through REST, as
docs/running-a-tournament.md does it, for the tournament pages' tests and
pictures: players, a tournament with its stages, results entered by a
referee, and the numbers the pages must show written the way they write
them (web/js/tournament/words.js num and pct)."""


def players(daemon, admin, names, club="Northside"):
    return [daemon.post("/v1/players", {"name": n, "club": club}, admin)["id"] for n in names]


def tournament(daemon, admin, name, stages, tables=(), seed=2026):
    t = daemon.post("/v1/tournaments", {"name": name, "game": "crash-pilot", "seed": seed, "competitive": False,
                                        "tables": list(tables)}, admin)["id"]
    for s in stages:
        daemon.post(f"/v1/tournaments/{t}/stages", s, admin)
    return t


def run_to_first_round(daemon, admin, t, player_ids):
    """Registration, check-in and the first round, all through REST."""
    daemon.post(f"/v1/tournaments/{t}/state", {"state": "registration"}, admin)
    for p in player_ids:
        daemon.post(f"/v1/tournaments/{t}/registrations", {"player": p}, admin)
    daemon.post(f"/v1/tournaments/{t}/state", {"state": "check_in"}, admin)
    for p in player_ids:
        daemon.post(f"/v1/tournaments/{t}/registrations/{p}/check-in", {}, admin)
    daemon.post(f"/v1/tournaments/{t}/state", {"state": "running"}, admin)
    return daemon.post(f"/v1/tournaments/{t}/rounds", {}, admin)


def matches(daemon, t, **query):
    q = "&".join(f"{k}={v}" for k, v in query.items())
    return daemon.get(f"/v1/tournaments/{t}/matches" + (f"?{q}" if q else ""))["items"]


def record(daemon, referee, t, m, winner_first=True):
    """A duel's (or a table's) result: seat order, or reversed."""
    seats = [p["player"] for p in m["participants"]]
    if not winner_first:
        seats.reverse()
    results = [{"player": p, "rank": i + 1} for i, p in enumerate(seats)]
    return daemon.post(f"/v1/tournaments/{t}/matches/{m['id']}/result", {"results": results}, referee)


def play_round(daemon, referee, t, round_matches, flip=()):
    """Every match of a round: seat 1 wins, but where its index is in flip."""
    for i, m in enumerate(round_matches):
        if m["state"] != "done":
            record(daemon, referee, t, m, winner_first=i not in flip)


def num(v):
    """words.js num(): whole numbers plain, others to two decimals without trailing zeros."""
    if float(v).is_integer():
        return str(int(v))
    return ("%.2f" % v).rstrip("0").rstrip(".")


def pct(v):
    return ("%.1f" % (v * 100)).rstrip("0").rstrip(".") + "%"


PCT_TIEBREAKS = {"omw", "gw", "ogw"}


def tiebreak_text(name, v):
    return pct(v) if name in PCT_TIEBREAKS else num(v)
