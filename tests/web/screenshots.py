"""tests/web/screenshots.py — the README's pictures, drawn by the same
browser code as the tests (make screenshots): a venue with a Crash Pilot
match under way at table A and a Reflex Duel (drawn by the generic
renderer) at table B; the scoreboard and table A's display; then a
tournament whose top 6 after a Swiss go on to a double elimination (a
bracket of 8, so the top two seeds have byes), played part of the way
with one match being played at table A: its bracket.  Into DIR.
Only `make screenshots` runs this: the tests never write tracked files."""
import os

import crash_pilot as cp
import tourney as tn


def main(World, out_dir):
    w = World()
    try:
        b, d, ref = w.browser, w.daemon, w.referee
        b.d.set_window_size(1600, 900)
        m = w.match("crash-pilot", ["Ana", "Ben", "Cy"], table=w.table_a, seed=11,
                    config={"reveal": {"pause_ms": 300, "timeout_ms": 60000}})
        w.start(m)
        v = None
        # a few calls: a tie, a tiebreak won, a wrong call, right ones
        plays = [("tie", None), (1, False), (3, True), (2, False), (1, False), (3, False), (2, True)]
        for seat, wrong in plays:
            v = cp.wait_window(d, m, v["window"]["id"] if v else None)
            if seat == "tie":
                d.post(f"/v1/matches/{m}/inputs", {"kind": "tie", "seats": [1, 2]}, ref)
            else:
                cp.call(d, ref, m, seat, cp.pick_call(v, want_wrong=wrong))
        v = cp.wait_window(d, m, v["window"]["id"])
        r = w.match("reflex", ["Dee", "Eve"], table=w.table_b, seed=4)
        w.start(r)

        os.makedirs(out_dir, exist_ok=True)
        b.new_tab()
        b.open(f"{w.url}/table?table={w.table_a}")
        b.wait_js("const c = document.querySelector('.cp-face .cp-card'); return c && c.dataset.handle === arguments[0];",
                  "the face-up card", v["face_up"]["handle"])
        b.wait_js("return document.getAnimations().length === 0;", "the reveal's animation to end")
        b.js("document.activeElement.blur();")
        b.d.save_screenshot(os.path.join(out_dir, "table.png"))
        b.new_tab()
        b.open(f"{w.url}/scoreboard")
        b.wait_js("return document.body.dataset.connection === 'live' && document.querySelector('.cp-players') && "
                  "document.querySelector('.generic-view');", "both tiles")
        b.d.save_screenshot(os.path.join(out_dir, "scoreboard.png"))
        bracket(w, out_dir)
        print("1..1\nok 1 - screenshots written to " + out_dir, flush=True)
        return 0
    finally:
        w.browser.quit()
        w.daemon.stop()


def bracket(w, out_dir):
    b, d, admin, ref = w.browser, w.daemon, w.admin, w.referee
    ids = tn.players(d, admin, ["Ada", "Bo", "Cleo", "Dev", "Eli", "Fay", "Gil", "Hal", "Ines", "Jo"])
    t = tn.tournament(d, admin, "Friday night", [
        {"format": "swiss", "config": {"rounds": 3}},
        {"format": "double_elimination", "advance": 6},
    ], tables=[w.table_a, w.table_b])
    tn.run_to_first_round(d, admin, t, ids)
    for r in (1, 2, 3):
        tn.play_round(d, ref, t, tn.matches(d, t, stage=1, round=r), flip={1})
        d.post(f"/v1/tournaments/{t}/rounds", {}, admin)        # the next round, then the bracket
    # the bracket's first two waves of matches played, some upsets among them
    for wave in range(2):
        pending = tn.matches(d, t, stage=2, state="pending")
        tn.play_round(d, ref, t, pending, flip={0} if wave else {1})
        d.post(f"/v1/tournaments/{t}/rounds", {}, admin)
    # the losers bracket's next matches played (two players out), the winners final called to table A
    parts = {m["id"]: m["part"] for m in d.get(f"/v1/tournaments/{t}/bracket?stage=2")["matches"]}
    for m in tn.matches(d, t, stage=2, state="pending"):
        if parts[m["bracket_id"]] == "winners":
            d.post(f"/v1/tournaments/{t}/matches/{m['id']}/call", {"table": w.table_a}, ref)
        else:
            tn.record(d, ref, t, m, winner_first=m["id"] % 2 == 0)

    b.d.set_window_size(1920, 1400)
    b.new_tab()
    b.open(f"{w.url}/tournament?id={t}")
    b.wait_js("return document.body.dataset.connection === 'live' && "
              "document.querySelector('.bk-match.is-called') && document.querySelector('.bk-placings');",
              "the bracket with a match being played")
    b.js("document.activeElement.blur(); document.getElementById('bracket').scrollIntoView();")
    b.d.find_element("id", "bracket").screenshot(os.path.join(out_dir, "bracket.png"))
