"""tests/web/screenshots.py — the README's pictures, drawn by the same
browser code as the tests (make screenshots): a venue with a Crash Pilot
match under way at table A and a Reflex Duel (drawn by the generic
renderer) at table B; the scoreboard and table A's display, into DIR.
Only `make screenshots` runs this: the tests never write tracked files."""
import os

import crash_pilot as cp


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
        print("1..1\nok 1 - screenshots written to " + out_dir, flush=True)
        return 0
    finally:
        w.browser.quit()
        w.daemon.stop()
