#!/usr/bin/python3
"""tests/web/run.py — the browser tests of the web pages (web/), as TAP.

One arbiterd (the test build, so that the test-only game "reflex" exists),
one headless Chromium, and the pages driven as people use them: the
scoreboard and a table display follow a Crash Pilot match to its end, the
referee console pauses, undoes and confirms, a station shows its own seat
and nothing of another's, the generic renderer shows a game without a
module, a page comes back by itself after arbiterd is killed and started
again, and the basics of accessibility hold (every control named, the
scoreboard theme's contrast).  Crash Pilot is played with the referee's
REST inputs, picked from the public view (crash_pilot.py).

A failing test leaves a screenshot, the page's text and its console under
$ARBITER_TEST_BUILD/web-failures/.  With --screenshots DIR it only draws
the README's pictures (make screenshots) into DIR.
"""
import sys
import traceback

from harness import Browser, Daemon, WAIT_S, wait_for
import crash_pilot as cp
import checks

results = []


class World:
    """What the tests share: the daemon, its tokens, two tables."""

    def __init__(self):
        import os
        self.daemon = Daemon(f"web_{os.getpid()}")
        d = self.daemon
        self.admin = d.create_token("admin", "web-admin")
        self.referee = d.create_token("referee", "web-referee")
        d.start()
        self.url = d.url
        self.table_a = d.post("/v1/tables", {"name": "A", "seats": [{"seat": 1}, {"seat": 2}, {"seat": 3}]}, self.admin)["id"]
        self.table_b = d.post("/v1/tables", {"name": "B", "seats": [{"seat": 1}, {"seat": 2}]}, self.admin)["id"]
        self.browser = Browser()

    def match(self, game, players, table=None, seed=1, confirm=None, config=None):
        body = {"game": game, "players": players, "seed": seed}
        if table:
            body["table"] = table
        if confirm:
            body["confirm"] = confirm
        if config:
            body["config"] = config
        return self.daemon.post("/v1/matches", body, self.referee)["id"]

    def start(self, match):
        self.daemon.post(f"/v1/matches/{match}/start", {}, self.referee)

    def state(self, match):
        return self.daemon.get(f"/v1/matches/{match}")["state"]


# Crash Pilot as the tests play it: a short verdict pause keeps them quick
# (the display's animations are shorter still); no card expires.
CP_FAST = {"reveal": {"pause_ms": 300, "timeout_ms": 60000}}


def test(fn):
    results.append(fn)
    return fn


# ---- Crash Pilot, start to end --------------------------------------------

def shows_card(b, handle, scope=".page-table"):
    return b.js("const c = document.querySelector('.cp-face .cp-card'); return c && c.dataset.handle;") == handle


def wait_shown(b, view):
    handle = view["face_up"]["handle"]
    wait_for(lambda: shows_card(b, handle), f"the display to show card {handle}")


def wait_stack(b, daemon, match, seat):
    """The display's cards-left of seat equals the public view's."""
    want = str(cp.public_view(daemon, match)["players"][seat - 1]["cards_left"])
    b.wait_js(f"const c = document.querySelector('tr[data-seat=\"{seat}\"] .cp-stack'); return c && c.innerText === arguments[0];",
              f"seat {seat}'s stack to show {want}", want)


@test
def scoreboard_and_table_follow_a_crash_pilot_match(w):
    b, d, ref = w.browser, w.daemon, w.referee
    b.new_tab()
    b.open(f"{w.url}/scoreboard")
    board = b.d.current_window_handle
    b.wait_text(f"article.tile[data-table=\"{w.table_a}\"]", "Table A")
    b.d.switch_to.new_window("tab")
    display = b.d.current_window_handle
    b.open(f"{w.url}/table?table={w.table_a}")
    b.wait_text("#board", "No match at this table yet")

    m = w.match("crash-pilot", ["Ana", "Ben", "Cy"], table=w.table_a, seed=11, config=CP_FAST)
    b.wait_text("#head", f"match {m}", "the display to switch to the new match")
    w.start(m)

    # a tie between Ana and Ben, then Ana wins the tiebreak
    v = cp.wait_window(d, m, None)
    wait_shown(b, v)
    d.post(f"/v1/matches/{m}/inputs", {"kind": "tie", "seats": [1, 2]}, ref)
    b.wait_text("#announcements", "Tie! Ana and Ben called at the same time")
    b.wait_text(".cp-state", "Tiebreak: only Ana and Ben may call")
    b.d.switch_to.window(board)
    b.wait_text(f"article.tile[data-table=\"{w.table_a}\"]", "Tiebreak")
    b.d.switch_to.window(display)
    v = cp.wait_window(d, m, v["window"]["id"])
    wait_shown(b, v)
    cp.call(d, ref, m, 1, cp.pick_call(v))
    b.wait_text(".cp-verdict", "Ana called")
    b.wait_text(".cp-verdict", ": correct in ")         # with the reaction time
    wait_stack(b, d, m, 1)

    # Cy calls wrong three times: out
    for chips in (1, 2, 3):
        v = cp.wait_window(d, m, v["window"]["id"])
        wait_shown(b, v)
        cp.call(d, ref, m, 3, cp.pick_call(v, want_wrong=True))
        b.wait_text(f"tr[data-seat=\"3\"]", f"{chips}/3")
        b.wait_text(".cp-verdict", "Cy called")
    b.wait_text("#announcements", "Cy has three chips and is out.")
    b.wait_js("return document.querySelector('tr[data-seat=\"3\"]').classList.contains('is-out');", "Cy's row to show out")
    b.wait_text("tr[data-seat=\"3\"]", "Out (1st out)")

    # Ana calls right until she has turned over her last card
    for _ in range(40):
        if w.state(m) == "finished":
            break
        v = cp.wait_window(d, m, v["window"]["id"])
        wait_shown(b, v)
        cp.call(d, ref, m, 1, cp.pick_call(v))
        wait_stack(b, d, m, 1)
    assert w.state(m) == "finished", f"match {m} did not finish"
    b.wait_text(".cp-state", "Ana wins!")
    b.wait_text("#announcements", "Ana wins the match!")
    b.wait_text("#head", "Finished")
    b.wait_js("return document.querySelector('tr[data-seat=\"1\"]').classList.contains('is-winner');", "Ana's row to show the winner")

    b.d.switch_to.window(board)
    b.wait_text(f"article.tile[data-table=\"{w.table_a}\"]", "Ana wins")
    b.wait_text(f"#results li[data-match=\"{m}\"]", "Ana wins")
    w.cp_finished = m


# ---- the referee console ----------------------------------------------------

def set_field(b, form, name, value):
    b.js("const f = document.querySelector(`form[data-input=\"${arguments[0]}\"] [name=\"${arguments[1]}\"]`);"
         "f.value = arguments[2]; f.dispatchEvent(new Event('change'));", form, name, str(value))


def wait_outcome(b, outcome):
    return b.wait_js(f"return document.querySelector('#proposal-body [data-outcome=\"{outcome}\"]');",
                     f"the console to show a {outcome}")


def chips(d, m, seat):
    return cp.public_view(d, m)["players"][seat - 1]["chips"]


@test
def referee_console_pauses_voids_and_confirms(w):
    b, d, ref = w.browser, w.daemon, w.referee
    m = w.match("crash-pilot", ["Dee", "Eve"], seed=5, confirm="referee", config=CP_FAST)
    b.new_tab()
    b.open(f"{w.url}/referee?match={m}")
    b.wait_js("return !document.getElementById('token-form').hidden;", "the token form")
    b.d.find_element("id", "token-input").send_keys(ref)
    b.click("#token-form button")
    b.wait_text("#head", "Ready")
    assert "access_token" not in b.d.current_url

    b.click("#start")
    b.wait_text("#head", "Playing")
    b.click("#pause")
    b.wait_text("#head", "Paused")
    assert w.state(m) == "paused"
    b.click("#resume")
    b.wait_text("#head", "Playing")

    # a wrong call by Eve, previewed and sent from the generic form
    v = cp.wait_window(d, m, None)
    set_field(b, "call", "seat", 2)
    set_field(b, "call", "call", cp.pick_call(v, want_wrong=True))
    b.click("form[data-input=\"call\"] button[type=submit]")
    wait_outcome(b, "preview")
    b.wait_text("#proposal-body", "wrong")
    assert chips(d, m, 2) == 0, "a preview stored something"
    b.click_text("#proposal-body button", "Send")
    wait_outcome(b, "sent")
    assert chips(d, m, 2) == 1
    seq = b.wait_js("const e = document.querySelector('#log li[data-kind=\"call\"]'); return e && Number(e.dataset.seq);",
                    "the call in the log")

    # undo: void it, see it listed for re-entry, enter it again
    b.click_text("#log button", f"Void #{seq} and after")
    wait_outcome(b, "preview")
    b.click_text("#proposal-body button", "Send")
    wait_outcome(b, "sent")
    b.wait_text(f"#proposal-body .voided li[data-seq=\"{seq}\"]", f"#{seq}")
    assert chips(d, m, 2) == 0
    cp.wait_window(d, m, None)
    b.click_text("#proposal-body .voided button", f"Enter #{seq} again")
    wait_outcome(b, "preview")
    b.click_text("#proposal-body button", "Send")
    wait_outcome(b, "sent")
    assert chips(d, m, 2) == 1

    # two more wrong calls: Eve is out, Dee wins, the result waits
    v = cp.public_view(d, m)
    for _ in range(2):
        v = cp.wait_window(d, m, v["window"]["id"] if v.get("window") else None)
        cp.call(d, ref, m, 2, cp.pick_call(v, want_wrong=True))
    wait_for(lambda: w.state(m) == "provisional", "the match to wait for confirmation")
    b.click_text("#confirmation button", "Confirm the result")
    wait_outcome(b, "preview")
    b.click_text("#proposal-body button", "Send")
    wait_outcome(b, "sent")
    wait_for(lambda: w.state(m) == "finished", "the confirmed match to be finished")
    b.wait_text("#head", "Finished")


# ---- stations and the generic renderer ---------------------------------------

@test
def a_station_shows_its_own_seat_only(w):
    b, d, ref = w.browser, w.daemon, w.referee
    m = w.match("reflex", ["Ana", "Ben"], table=w.table_b, seed=21)
    lucky = {s: d.get(f"/v1/matches/{m}/seats/{s}", ref)["you"]["lucky"] for s in (1, 2)}
    link = d.post(f"/v1/tables/{w.table_b}/seats/1/token", {}, ref)["station_url"]
    b.new_tab()
    b.open(w.url + link)
    b.wait_js("const e = document.querySelector('section.you [data-member=\"lucky\"]'); return e && e.innerText === arguments[0];",
              "the station to show seat 1's lucky number", str(lucky[1]))
    assert "access_token" not in b.d.current_url, "the token stayed in the address bar"
    assert b.js("return document.querySelectorAll('[data-member=\"lucky\"]').length;") == 1
    assert not b.js("return document.querySelector('[data-member=\"audit\"]');"), "the referee's audit is shown"
    you = b.text("section.you")
    if lucky[1] != lucky[2]:
        assert str(lucky[2]) not in you, f"seat 2's lucky number {lucky[2]} is on seat 1's station"
    w.start(m)
    b.wait_text("#head", "Playing")
    fetched = b.js("return performance.getEntriesByType('resource').map(e => e.name);")
    assert any(f"/v1/matches/{m}/seats/1" in u for u in fetched), fetched
    bad = [u for u in fetched if "/seats/2" in u or "/referee" in u]
    assert not bad, f"the station read another audience's data: {bad}"
    w.reflex = m


@test
def the_generic_renderer_shows_a_game_without_a_module(w):
    b, d, ref = w.browser, w.daemon, w.referee
    m = w.reflex
    station = b.d.current_window_handle         # the last test's station stays open
    b.d.switch_to.new_window("tab")
    b.open(f"{w.url}/table?table={w.table_b}")
    b.wait_js("return document.querySelector('.game-area[data-game=\"reflex\"] .generic-view');", "the generic view")
    b.wait_text("table.seat-table", "Ana")
    b.wait_text("table.seat-table", "Ben")
    # the go turns up a prompt: the display shows its word
    view = wait_for(lambda: (lambda v: v if v["phase"] == "live" else None)(d.get(f"/v1/matches/{m}/referee", ref)["view"]),
                    "the go of round 1")
    b.wait_text(".generic-card", view["card"]["word"])
    d.post(f"/v1/matches/{m}/inputs", {"kind": "call", "seat": 1, "call": "hit"}, ref)
    b.wait_text("#announcements", "Ana (seat 1) hits first")
    b.wait_js("const r = document.querySelector('table.seat-table tr[data-seat=\"1\"]'); return r && r.innerText.includes('1');",
              "Ana's score")
    d.post(f"/v1/matches/{m}/abort", {}, ref)
    b.wait_text("#head", "Aborted")
    # the station keeps its seat on screen when the match ends
    b.d.switch_to.window(station)
    b.wait_text("#head", "Aborted")
    assert "refused" not in b.text("#seat"), b.text("#seat")
    assert b.js("return document.querySelector('section.you [data-member=\"lucky\"]') !== null;")


# ---- accessibility -----------------------------------------------------------

@test
def every_control_is_labelled_and_pages_have_landmarks(w):
    b, d, ref = w.browser, w.daemon, w.referee
    link = d.post(f"/v1/tables/{w.table_a}/seats/2/token", {}, ref)["station_url"]
    m = w.match("crash-pilot", ["Ana", "Ben"], seed=3, config=CP_FAST)
    pages = ["/", "/scoreboard", f"/table?table={w.table_a}", link, "/referee", f"/referee?match={m}"]
    problems = []
    for p in pages:
        b.new_tab()
        b.open(w.url + p)
        if p.startswith("/referee?"):
            b.d.find_element("id", "token-input").send_keys(ref)
            b.click("#token-form button")
            b.wait_js("return !document.getElementById('console').hidden && document.querySelector('#forms form');",
                      "the console's forms")
        else:
            b.wait_js("return document.body.dataset.connection === 'live';", f"{p} to be live")
        problems += [f"{p}: {x}" for x in b.js(checks.LABELS_JS)]
    assert not problems, "\n".join(problems)


@test
def the_scoreboard_theme_has_enough_contrast(w):
    b, d, ref = w.browser, w.daemon, w.referee
    # a live match with a verdict, a chip and a tiebreak on the board
    m = w.match("crash-pilot", ["Ana", "Ben", "Cy"], table=w.table_a, seed=13, config=CP_FAST)
    w.start(m)
    v = cp.wait_window(d, m, None)
    cp.call(d, ref, m, 2, cp.pick_call(v, want_wrong=True))
    v = cp.wait_window(d, m, v["window"]["id"])
    d.post(f"/v1/matches/{m}/inputs", {"kind": "tie", "seats": [1, 3]}, ref)
    cp.wait_window(d, m, v["window"]["id"])
    b.new_tab()
    b.open(f"{w.url}/scoreboard")
    b.wait_js("return document.body.dataset.connection === 'live' && document.querySelector('.cp-players .cp-tiebreak');",
              "the scoreboard with a Crash Pilot tile in a tiebreak")
    b.wait_js("return document.querySelector('#results li');", "the results")
    low = b.js(checks.CONTRAST_JS, 4.5)
    assert not low, "text below 4.5:1:\n" + "\n".join(low)
    assert b.js("return document.querySelectorAll('[data-checked-contrast]').length;") > 20, "checked too little"
    d.post(f"/v1/matches/{m}/abort", {}, ref)


@test
def the_obs_mode_is_transparent_without_chrome(w):
    b = w.browser
    b.new_tab()
    b.open(f"{w.url}/scoreboard?obs=1")
    b.wait_js("return document.body.dataset.connection === 'live';", "the scoreboard to be live")
    assert b.js("return getComputedStyle(document.body).backgroundColor;") == "rgba(0, 0, 0, 0)"
    assert b.js("return getComputedStyle(document.documentElement).backgroundColor;") == "rgba(0, 0, 0, 0)"
    assert not b.js("return [...document.querySelectorAll('.chrome')].some(e => e.offsetParent !== null);")


@test
def the_start_page_leads_to_every_screen(w):
    b = w.browser
    b.new_tab()
    b.open(f"{w.url}/")
    b.wait_text("#tables", "Table A")
    hrefs = b.js("return [...document.querySelectorAll('a')].map(a => a.getAttribute('href'));")
    for want in ("scoreboard", "referee", f"table?table={w.table_a}", f"table?table={w.table_b}"):
        assert want in hrefs, f"no link to {want}: {hrefs}"


# ---- a restart ---------------------------------------------------------------

@test
def a_page_recovers_after_the_daemon_restarts(w):
    b, d, ref = w.browser, w.daemon, w.referee
    m = w.match("crash-pilot", ["Ana", "Ben"], table=w.table_a, seed=8, config=CP_FAST)
    b.new_tab()
    b.open(f"{w.url}/table?table={w.table_a}")
    b.wait_text("#head", f"match {m}")
    w.start(m)
    v = cp.wait_window(d, m, None)
    wait_shown(b, v)
    b.wait_js("return document.body.dataset.connection === 'live';", "live")
    b.js("window.notReloaded = true;")

    d.kill()
    b.wait_js("return document.body.dataset.connection === 'reconnecting';", "the page to show it is reconnecting")
    b.wait_text("#connection", "Reconnecting")
    assert b.js("return getComputedStyle(document.getElementById('board')).opacity;") != "1", "stale data is not greyed"
    d.start()
    b.wait_js("return document.body.dataset.connection === 'live';", "the page to be live again", )
    v = cp.wait_window(d, m, None)
    wait_shown(b, v)
    cp.call(d, ref, m, 2, cp.pick_call(v))
    b.wait_text(".cp-verdict", "Ben called")
    wait_stack(b, d, m, 2)
    assert b.js("return window.notReloaded === true;"), "the page was reloaded"


# ---- the run -----------------------------------------------------------------

def run_tests(w):
    print(f"1..{len(results)}", flush=True)
    failed = 0
    for i, fn in enumerate(results, 1):
        name = fn.__name__
        try:
            fn(w)
            print(f"ok {i} - {name}", flush=True)
        except Exception as e:
            failed += 1
            print(f"not ok {i} - {name}", flush=True)
            for line in traceback.format_exception(e):
                for l in line.rstrip().splitlines():
                    print(f"# {l}", flush=True)
            try:
                print(f"# screenshots and page text in {w.browser.save_failure(name)}", flush=True)
            except Exception as e2:
                print(f"# (no screenshot: {e2})", flush=True)
    return failed


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--screenshots":
        import screenshots
        return screenshots.main(World, sys.argv[2])
    w = None
    try:
        w = World()
        failed = run_tests(w)
    finally:
        if w:
            w.browser.quit()
            w.daemon.stop()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
