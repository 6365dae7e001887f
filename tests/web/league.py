"""tests/web/league.py — the league scoreboard (/league) of one venue's
arbiterd following a match that another venue's arbiterd runs: a second
daemon, venue "south", on the same database as the suite's (venue
"main"), a table at south made through main, and a Crash Pilot match there
played with the referee's inputs sent to south.  What main's page shows of
it comes only through the database (docs/architecture.md, "Several
venues")."""
from harness import Daemon, wait_for
import checks
import crash_pilot as cp

CP_FAST = {"reveal": {"pause_ms": 300, "timeout_ms": 60000}}


def tests(test):
    @test
    def the_league_scoreboard_shows_another_venues_live_table(w):
        b, d, ref, admin = w.browser, w.daemon, w.referee, w.admin
        south = Daemon("web_south", dsn=d.dsn, venue="south")
        south.start()
        try:
            table = d.post("/v1/tables", {"name": "S1", "venue": "south", "seats": [{"seat": 1}, {"seat": 2}]},
                           admin)
            assert table["venue"] == "south", table
            b.new_tab()
            b.open(f"{w.url}/league")
            tile = f"section.venue[data-venue=\"south\"] article.tile[data-table=\"{table['id']}\"]"
            b.wait_text("section.venue[data-venue=\"main\"]", "Table A")
            b.wait_text(tile, "No match now")
            b.wait_text("section.venue[data-venue=\"south\"] .venue-daemon", "open")
            # the venue scoreboard of main shows main's tables only
            mains = d.get("/v1/tables?venue=main")["items"]
            assert mains and all(t["venue"] == "main" for t in mains), mains

            # a match made at main for south's table is run by south
            m = d.post("/v1/matches", {"game": "crash-pilot", "players": ["Ana", "Ben"], "table": table["id"],
                                       "seed": 5, "config": CP_FAST}, ref)["id"]
            wait_for(lambda: south.get(f"/v1/matches/{m}").get("view") is not None, "south to run the match")
            b.wait_text(tile, "Ana, Ben")
            south.post(f"/v1/matches/{m}/start", {}, ref)
            v = cp.wait_window(south, m, None)
            b.wait_js(f"const c = document.querySelector('{tile} .cp-card'); return c && c.dataset.handle === arguments[0];",
                      "main's tile to show south's face-up card", v["face_up"]["handle"])
            south.post(f"/v1/matches/{m}/inputs", {"kind": "tie", "seats": [1, 2]}, ref)
            b.wait_text(tile, "Tiebreak")
            for _ in range(60):
                if south.get(f"/v1/matches/{m}")["state"] == "finished":
                    break
                v = cp.wait_window(south, m, v["window"]["id"])
                cp.call(south, ref, m, 1, cp.pick_call(v))
            assert south.get(f"/v1/matches/{m}")["state"] == "finished", f"match {m} did not finish at south"
            b.wait_text(tile, "Ana wins")
            b.wait_text(f"#results li[data-match=\"{m}\"]", "Ana wins")
            b.wait_text(f"#results li[data-match=\"{m}\"]", "south")
            low = b.js(checks.CONTRAST_JS, 4.5)
            assert not low, "text below 4.5:1:\n" + "\n".join(low)
        finally:
            south.stop()
