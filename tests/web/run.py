#!/usr/bin/python3
"""tests/web/run.py — the browser tests of the web pages (web/), as TAP.

One arbiterd (the test build, so that the test-only game "reflex" exists),
one headless Chromium, and the pages driven as people use them: the
scoreboard and a table display follow a Crash Pilot match to its end, the
referee console pauses, undoes and confirms, a station shows its own seat
and nothing of another's, the generic renderer shows a game without a
module, a page comes back by itself after arbiterd is killed and started
again, the league scoreboard follows a match another venue's arbiterd runs
(league.py), and the basics of accessibility hold (every control named, the
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
import crazy_pilot as cz
import checks
import tourney as tn
import pitch_fleet as pf
import league

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


# ---- Crazy Pilot ------------------------------------------------------------------

@test
def crazy_pilot_scenes_draw_every_element(w):
    """scene.js draws every road, light, sign, marking and item kind of
    engine/crazy_cards.h: each item kind its own drawing and label, the
    lit lamp in its place and named, the card's text as text."""
    b = w.browser
    b.new_tab()
    b.open(f"{w.url}/")
    b.wait_js("return document.readyState === 'complete';", "the start page")
    faces = cz.sample_faces()
    faces.append({"handle": "0badc0de", "name": "<img src=x onerror=alert(1)> & <b>bold</b>",
                  "scene": cz.scene(items=[("zombie", 2, 2), ("scarecrow", 1, 2), ("mannequin", 3, 2)])})
    b.d.set_script_timeout(WAIT_S)
    got = b.d.execute_async_script(cz.DRAW_JS, faces)
    assert "error" not in got, got
    assert sorted(got["kinds"]) == sorted(cz.ITEMS), got["kinds"]
    figs = got["figures"]
    for fig, face in zip(figs, faces):
        assert fig["role"] == "img" and fig["label"] == face["name"] == fig["caption"], fig
        assert fig["elements"] == 0, f"the card's text made elements: {fig}"
        assert fig["handle"] == face["handle"] and fig["road"] == face["scene"]["road"], fig
        assert fig["car"] == face["scene"]["car_lane"], fig
        assert sorted((i["kind"], i["lane"], i["row"]) for i in fig["items"]) == sorted(
            (i["kind"], i["lane"], i["row"]) for i in face["scene"]["items"]), fig["items"]
    items = {}
    for fig in figs[:-1]:
        for i in fig["items"]:
            items[i["kind"]] = i
    assert sorted(items) == sorted(cz.ITEMS), sorted(items)
    assert len({i["label"] for i in items.values()}) == len(cz.ITEMS), [i["label"] for i in items.values()]
    assert len({i["drawing"] for i in items.values()}) == len(cz.ITEMS), "two item kinds are drawn alike"
    small = [(k, i["box"]) for k, i in items.items() if min(i["box"]) < 12]
    assert not small, f"items too small to see: {small}"
    zombie, scarecrow, mannequin = figs[-1]["items"]
    assert {zombie["kind"], scarecrow["kind"], mannequin["kind"]} == {"zombie", "scarecrow", "mannequin"}
    roads = {f["road"]: f["roadDrawing"] for f in figs if f["caption"].startswith("road ")}
    assert sorted(roads) == sorted(cz.ROADS) and len(set(roads.values())) == len(cz.ROADS), sorted(roads)
    lit = [f for f in figs if f["caption"].startswith("light ")]
    for f in lit:
        light, sign, marking = f["caption"].split()[1::2]
        assert f["light"] == light and f["sign"] == sign and f["marking"] == marking, f
        if light != "none":
            assert light.upper() in f["lightText"], f
            assert f["lit"] == [k == light for k in ("red", "amber", "green")], f
        if sign != "none":
            assert f["signText"], f
    signs = {f["sign"]: f["signText"] for f in lit if f["sign"] != "none"}
    assert sorted(signs) == sorted(cz.SIGNS[1:]) and len(set(signs.values())) == len(signs), signs
    assert {f["marking"] for f in lit} == set(cz.MARKINGS), [f["marking"] for f in lit]


def need_game(w, name):
    """A game's match tests need its engine registered (engine/registry.c):
    a build without it fails them, saying so."""
    assert name in [g["name"] for g in w.daemon.get("/v1/games")["items"]], \
        f"the game {name} is not registered in this build"


def no_module_errors(b):
    """Nothing the Crazy Pilot module ran threw (the browser's console)."""
    bad = [e["message"] for e in b.d.get_log("browser") if e["level"] == "SEVERE" and "crazy-pilot" in e["message"]]
    assert not bad, bad


def seat_token(d, ref, m, seat):
    return d.post(f"/v1/matches/{m}/seats/{seat}/token", {}, ref)["token"]


STATUS_JS = "const e = document.querySelector('.cz-you-status'); return e && [e.dataset.state, e.innerText];"
SHOWN_JS = "const f = document.querySelector('.cz-station-card figure.cz-card'); return f && f.dataset.handle"


@test
def a_crazy_pilot_station_shows_its_own_scene_and_the_slap_race(w):
    b, d, ref = w.browser, w.daemon, w.referee
    need_game(w, "crazy-pilot")
    m = w.match("crazy-pilot", ["Ana", "Ben", "Cy"], seed=31, config=cz.CZ_SLOW)
    token = seat_token(d, ref, m, 1)
    b.new_tab()
    b.open(f"{w.url}/station?match={m}&seat=1&access_token={token}")
    b.wait_js("const e = document.querySelector('.cz-you-status'); return e && e.dataset.state === 'ready';",
              "the station to wait for the start")
    assert "access_token" not in b.d.current_url, "the token stayed in the address bar"
    w.start(m)
    mine = cz.wait_card(d, ref, m, 1)["you"]["card"]
    other = cz.wait_card(d, ref, m, 2)["you"]["card"]
    b.wait_js(SHOWN_JS + " === arguments[0];", "the station to show seat 1's card", mine["handle"])
    fig = b.js("const f = document.querySelector('.cz-station-card figure.cz-card'); return [f.getAttribute('aria-label'), "
               "f.querySelector('figcaption').textContent, f.querySelectorAll('svg .cz-item').length, f.querySelector('svg .cz-road').dataset.road];")
    assert fig == [mine["name"], mine["name"], len(mine["scene"]["items"]), mine["scene"]["road"]], (fig, mine)
    assert b.js(STATUS_JS) == ["play", "Your card: where does it go?"], b.js(STATUS_JS)
    # the scene is big enough to read at arm's length on a tablet
    width = b.js("return document.querySelector('.cz-station-card svg').getBoundingClientRect().width;")
    assert width >= 400, f"the scene is {width} px wide"
    # nothing of seat 2's card, and no answer, on seat 1's station
    page = b.js("return document.documentElement.outerHTML;")
    assert other["handle"] not in page, "seat 2's card handle is on seat 1's station"
    if other["name"] != mine["name"]:
        assert other["name"] not in page, "seat 2's card is on seat 1's station"
    assert not b.js("return document.querySelector('[data-answer], .cz-answers, .cz-scores');"), "an answer before the scoring"
    fetched = b.js("return performance.getEntriesByType('resource').map(e => e.name);")
    bad = [u for u in fetched if "/seats/2" in u or "/seats/3" in u or "/referee" in u]
    assert not bad, f"the station read another audience's data: {bad}"

    # Ben shouts: Ana must slap, big; then she waits for Cy; then the check
    cz.send(d, ref, m, "shout", 2)
    b.wait_js("const s = document.querySelector('.cz-you-status'); return s && s.dataset.state === 'slap' && s.innerText === 'SLAP!';",
              "SLAP! on Ana's station")
    b.wait_text(".cz-race .cz-still", "Ana and Cy")
    b.wait_text(".cz-race .cz-shouters", "Ben")
    problems = b.js(checks.LABELS_JS) + b.js(checks.CONTRAST_JS, 4.5)
    assert not problems, problems
    cz.send(d, ref, m, "slap", 1)
    b.wait_text(".cz-you-status", "Slapped. Waiting for Cy")
    b.wait_text(".cz-race .cz-slaps", "1st")
    cz.send(d, ref, m, "slap", 3)
    race = cz.wait_phase(d, m, ("checked",))["race"]
    b.wait_js("const s = document.querySelector('.cz-you-status'); return s && s.dataset.state === 'checked';", "the check on Ana's station")
    b.wait_text(".cz-race .cz-zombie-found", "yes" if race["zombie"] else "no")
    if race["zombie"]:
        b.wait_text(".cz-you-status", "Cy takes a penalty card")
    cz.send(d, ref, m, "drive")
    b.wait_text("#announcements", "Driiiiive!")
    b.wait_js("return !document.querySelector('.cz-race');", "the race to leave the station")
    b.wait_js("const s = document.querySelector('.cz-you-status'); return s && s.dataset.state === 'play';", "Ana to play on")

    # Ana resolves her card: the next one comes up, and her stack counts it
    cz.send(d, ref, m, "resolve", 1, placement="left")
    nxt = cz.wait_card(d, ref, m, 1, after=mine["handle"])["you"]["card"]
    b.wait_js(SHOWN_JS + " === arguments[0];", "the station to show seat 1's next card", nxt["handle"])
    b.wait_text(".cz-mytable .cz-at-left .cz-stack-count", "1")
    b.wait_text("#announcements", "Ana placed a card: left")
    assert not b.js("return document.querySelector('[data-answer], .cz-answers, .cz-scores');"), "an answer before the scoring"

    # Ana shouts herself: she waits for the others, then she is the one to say "Driiiiive!"
    cz.send(d, ref, m, "shout", 1)
    b.wait_text(".cz-you-status", "You shouted! Waiting for Ben and Cy to slap")
    cz.send(d, ref, m, "slap", 2)
    cz.send(d, ref, m, "slap", 3)
    b.wait_js("const s = document.querySelector('.cz-you-status'); return s && s.dataset.state === 'drive';", "Driiiiive! on Ana's station")
    assert b.text(".cz-you-status") == "Driiiiive! Press your slap pad to go on"
    cz.send(d, token, m, "drive")                   # her own token: the shouter may drive on
    b.wait_js("return !document.querySelector('.cz-race');", "the race to leave the station")
    no_module_errors(b)
    d.post(f"/v1/matches/{m}/abort", {}, ref)


@test
def the_table_display_shows_a_crazy_pilot_slap_race_and_the_final_breakdown(w):
    b, d, ref = w.browser, w.daemon, w.referee
    need_game(w, "crazy-pilot")
    m = w.match("crazy-pilot", ["Ana", "Ben", "Cy"], table=w.table_b, seed=32, config=cz.CZ_SLOW)
    b.new_tab()
    b.open(f"{w.url}/scoreboard")
    board = b.d.current_window_handle
    b.d.switch_to.new_window("tab")
    display = b.d.current_window_handle
    b.open(f"{w.url}/table?match={m}")
    b.wait_text("#head", f"match {m}")
    b.wait_text(".cz-state", "Waiting for the start signal")
    w.start(m)
    cz.wait_card(d, ref, m, 1)
    b.wait_text(".cz-state", "Driving")

    # Ana shouts: Ben and Cy must slap; Cy first, then Ben, a gap in ms
    cz.send(d, ref, m, "shout", 1)
    b.wait_text(".cz-race .cz-still", "Ben and Cy")
    b.wait_text(".cz-state", "Zombie pause")
    b.wait_text("tr[data-seat=\"2\"] .cz-must-slap", "must slap")
    b.d.switch_to.window(board)
    b.wait_text(f"article.tile[data-table=\"{w.table_b}\"] .cz-state", "Ana shouted. Still to slap: Ben and Cy")
    b.wait_text(f"article.tile[data-table=\"{w.table_b}\"] tr[data-seat=\"3\"]", "must slap")
    b.d.switch_to.window(display)
    cz.send(d, ref, m, "slap", 3)
    b.wait_text(".cz-race .cz-still", "Ben")
    b.wait_text(".cz-slaps tbody tr[data-seat=\"3\"]", "1st")
    b.wait_text(".cz-slaps tr.cz-waiting[data-seat=\"2\"]", "still to slap")
    cz.send(d, ref, m, "slap", 2)
    race = cz.wait_phase(d, m, ("checked",))["race"]
    gap = race["slaps"][1]["gap_us"]
    want = f"+{gap / 1000:.1f} ms" if gap < 10000 else f"+{round(gap / 1000)} ms"
    b.wait_text(".cz-slaps tbody tr[data-seat=\"2\"]", "2nd")
    b.wait_text(".cz-slaps tbody tr[data-seat=\"2\"] .cz-gap", want)
    b.wait_text("#announcements", "Cy slapped 1st")
    if race["zombie"]:
        b.wait_text(".cz-race", "Ben takes a penalty card")
        b.wait_text("tr[data-seat=\"2\"] .cz-penalties", "1")
    else:
        b.wait_text(".cz-race", "No zombie.")
    cz.send(d, ref, m, "drive")
    b.wait_js("return !document.querySelector('.cz-race');", "the race to end on the display")
    b.wait_text(".cz-state", "Driving")

    # Ana plays her whole pile: her starting card ends the game
    view = cz.play_out(d, ref, m, 1)
    assert w.state(m) in ("finished", "provisional"), w.state(m)
    b.wait_text("#head", "Finished")
    b.wait_text("#announcements", "Ana revealed the starting card")
    rows = b.wait_js("return document.querySelectorAll('table.cz-scores tbody tr').length === 3 && "
                     "[...document.querySelectorAll('table.cz-scores tbody tr')].map(tr => [Number(tr.dataset.seat), "
                     "Object.fromEntries([...tr.querySelectorAll('td[data-term]')].map(td => [td.dataset.term, Number(td.dataset.value)])), "
                     "Number(tr.querySelector('.cz-score').dataset.value)]);", "the scores")
    terms = ["correct", "finish", "wrong", "penalties", "set_aside"]
    want_rows = [[s["seat"], {t: s[t] for t in terms}, s["score"]] for s in view["scores"]]
    assert rows == want_rows, (rows, want_rows)
    assert view["scores"][0]["finish"] == 2, view["scores"]
    assert b.text("table.cz-scores tr[data-seat=\"1\"] td[data-term=finish]") == "+2"
    backs = b.js("return Object.fromEntries([...document.querySelectorAll('.cz-answer-seat')].map(e => [e.dataset.seat, "
                 "[...e.querySelectorAll('li.cz-back')].map(li => [li.dataset.handle, li.dataset.answer, li.classList.contains('is-correct')])]));")
    for a in view["answers"]:
        want_backs = [[c["handle"], c["answer"], c["correct"]] for cards in a["stacks"].values() for c in cards]
        assert sorted(backs.get(str(a["seat"]), [])) == sorted(want_backs), (a["seat"], backs, want_backs)
    best = max(s["score"] for s in view["scores"])
    top = [s["seat"] for s in view["scores"] if s["score"] == best]
    b.wait_text(".cz-state", "wins!" if len(top) == 1 else "share the victory")
    problems = b.js(checks.LABELS_JS) + b.js(checks.CONTRAST_JS, 4.5)
    assert not problems, problems
    b.d.switch_to.window(board)
    b.wait_js(f"return document.querySelectorAll('article.tile[data-table=\"{w.table_b}\"] .cz-score').length === 3;",
              "the tile's scores")
    no_module_errors(b)


@test
def the_referee_console_drives_on_and_moves_a_crazy_pilot_card(w):
    b, d, ref = w.browser, w.daemon, w.referee
    need_game(w, "crazy-pilot")
    m = w.match("crazy-pilot", ["Dee", "Eve", "Fin"], seed=33, config=cz.CZ_SLOW)
    b.new_tab()
    b.open(f"{w.url}/referee?match={m}")
    b.d.find_element("id", "token-input").send_keys(ref)
    b.click("#token-form button")
    b.wait_text("#head", "Ready")
    b.click("#start")
    b.wait_text("#head", "Playing")
    assert not b.js("return document.querySelector('form[data-input=\"drive\"], form[data-input=\"move\"]');"), \
        "drive and move are the module's, not generic forms"
    first = cz.wait_card(d, ref, m, 1)["you"]["card"]
    cz.wait_card(d, ref, m, 2)
    # the face-up cards are on the referee's screen, the drive button waits for a checked race
    b.wait_js("return document.querySelector('.cz-ref-seat[data-seat=\"1\"] figure.cz-card')?.dataset.handle === arguments[0];",
              "seat 1's card on the referee's screen", first["handle"])
    assert b.js("return document.querySelector('button.cz-drive').disabled;")
    cz.send(d, ref, m, "shout", 2)
    cz.send(d, ref, m, "slap", 1)
    cz.send(d, ref, m, "slap", 3)
    cz.wait_phase(d, m, ("checked",))
    b.click("button.cz-drive")
    wait_outcome(b, "preview")
    assert cz.public_view(d, m)["phase"] == "checked", "a preview drove on"
    b.click_text("#proposal-body button", "Send")
    wait_outcome(b, "sent")
    assert cz.wait_phase(d, m, ("playing",))["race"] is None
    b.wait_js("return document.querySelector('button.cz-drive').disabled;", "the drive button to be off again")

    # a misfire: Dee's card went left, the referee moves it to the right
    cz.wait_card(d, ref, m, 1)
    cz.send(d, ref, m, "resolve", 1, placement="left")
    handle = wait_for(lambda: (d.get(f"/v1/matches/{m}/referee", ref)["view"]["referee"]["seats"][0]["stacks"]["left"] or [None])[0],
                      "Dee's left stack")
    row = f".cz-ref-seat[data-seat=\"1\"] li.cz-move[data-handle=\"{handle}\"]"
    b.wait_js(f"return document.querySelector('{row} select');", "the move control")
    b.js(f"const s = document.querySelector('{row} select'); s.value = 'right'; s.dispatchEvent(new Event('change'));")
    b.click(f"{row} button")
    wait_outcome(b, "preview")
    b.click_text("#proposal-body button", "Send")
    wait_outcome(b, "sent")
    wait_for(lambda: (lambda st: st["left"] == 0 and st["right"] == 1)(cz.public_view(d, m)["seats"][0]["stacks"]),
             "the card on Dee's right stack")
    b.wait_text("#announcements", "The referee moved Dee's card from left to right")
    problems = b.js(checks.LABELS_JS)
    assert not problems, problems
    d.post(f"/v1/matches/{m}/abort", {}, ref)
    no_module_errors(b)


# Taps a cover button in one script and reads it drawn again at once:
# the click's draw is synchronous, the send cannot have been answered yet.
COVER_TAP_JS = """
const sel = `.cz-front li[data-handle="${arguments[0]}"] button.cz-cover`;
const b = document.querySelector(sel);
if (!b || b.disabled) return null;
const r = b.getBoundingClientRect();
b.click();
const after = document.querySelector(sel);
return {text: b.innerText, size: [r.width, r.height], disabled: after ? after.disabled : null};"""


@test
def a_two_player_crazy_pilot_station_covers_a_card_in_front_of_it(w):
    b, d, ref = w.browser, w.daemon, w.referee
    need_game(w, "crazy-pilot")
    m = w.match("crazy-pilot", ["Gus", "Hal"], seed=34, config=cz.CZ_SLOW)
    token = seat_token(d, ref, m, 2)
    b.new_tab()
    b.open(f"{w.url}/station?match={m}&seat=2&access_token={token}")
    w.start(m)
    sent = cz.wait_card(d, ref, m, 1)["you"]["card"]
    mine = cz.wait_card(d, ref, m, 2)["you"]["card"]
    b.wait_js(SHOWN_JS + " === arguments[0];", "Hal's own card", mine["handle"])
    b.wait_text(".cz-front h3", "In front of you: 0 cards")
    assert b.js("return document.querySelector('.cz-front button') === null;"), "a cover button with no card in front"
    # Gus shouts: his card goes in front of Hal, who may look at it (no race with two)
    cz.send(d, ref, m, "shout", 1)
    front = f".cz-front li[data-handle=\"{sent['handle']}\"]"
    b.wait_js(f"return document.querySelector('{front} figure.cz-card');", "the sent card in front of Hal")
    assert b.text(f"{front} figcaption") == sent["name"]
    assert b.text(f"{front} p") == "Not covered"
    assert not b.js("return document.querySelector('.cz-race');"), "a race with two players"
    problems = b.js(checks.LABELS_JS) + b.js(checks.CONTRAST_JS, 4.5)
    assert not problems, problems
    # paused by the referee, the cover is refused: the page says why in
    # words, the card stays uncovered and the button comes back
    d.post(f"/v1/matches/{m}/pause", {}, ref)
    wait_for(lambda: (b.js(STATUS_JS) or [None])[0] == "paused", "the pause on Hal's station")
    wait_for(lambda: b.js(COVER_TAP_JS, sent["handle"]), "the cover button to be tappable")
    b.wait_text("#sent", "Not sent: refused (")
    assert b.js("return document.querySelector('#sent').getAttribute('role');") == "status"
    b.wait_js(f"const e = document.querySelector('{front} button.cz-cover'); return e && !e.disabled;",
              "the cover button back after the refusal")
    assert b.text(f"{front} p") == "Not covered"
    d.post(f"/v1/matches/{m}/resume", {}, ref)
    wait_for(lambda: (b.js(STATUS_JS) or ["paused"])[0] != "paused", "the resume on Hal's station")
    # Hal taps "Cover with a penalty card": disabled at once, a finger's size
    tap = wait_for(lambda: b.js(COVER_TAP_JS, sent["handle"]), "the cover button to be tappable")
    assert tap["text"] == "Cover with a penalty card", tap
    assert tap["disabled"] is True, f"the cover button is not disabled while it is sent: {tap}"
    assert min(tap["size"]) >= 44, f"the cover button is smaller than a finger: {tap}"
    b.wait_text(f"{front} p", "Covered with a penalty card")
    b.wait_text(".cz-front h3", "In front of you: 1 card")
    assert b.js(f"return document.querySelector('{front} button') === null;"), "a cover button on a covered card"
    assert b.js("return document.querySelector('.cz-front button') === null;"), "a cover button left"
    assert b.text("#sent") == "", b.text("#sent")
    assert [(c["handle"], c["covered"]) for c in d.get(f"/v1/matches/{m}/seats/2", token)["you"]["front"]] == \
        [(sent["handle"], True)]
    # the log: the refused cover and the one that stands, both from the seat (its token), for the card
    covers = [i for i in d.get(f"/v1/matches/{m}/log", ref)["items"] if i["kind"] == "cover"]
    assert [(c["source"], c["seat"], c["input"]["card"], c["refusal"] is None) for c in covers] == \
        [("seat", 2, sent["handle"], False), ("seat", 2, sent["handle"], True)], covers
    # a second cover of the card, over REST with the seat's token, is refused
    again = d.post(f"/v1/matches/{m}/inputs", {"kind": "cover", "card": sent["handle"]}, token, expect=(409,))
    assert again["refusal"], again
    no_module_errors(b)
    d.post(f"/v1/matches/{m}/abort", {}, ref)


# ---- the tournament pages -----------------------------------------------------

STANDINGS_JS = """
const t = document.querySelector('table.standings');
if (!t) return null;
return {stage: Number(t.dataset.stage),
  tiebreaks: [...t.querySelectorAll('thead th[data-tiebreak]')].map(th => th.dataset.tiebreak),
  rows: [...t.querySelectorAll('tbody tr')].map(tr => [Number(tr.dataset.player), tr.querySelector('.rank').innerText,
    tr.querySelector('.points').innerText,
    [...tr.querySelectorAll('td.tb')].map(td => [td.dataset.tiebreak, Number(td.dataset.value), td.innerText])])};"""


def wait_standings_as_served(b, d, t, stage):
    """The page's standings are GET …/standings?stage=N's, every tie-break column included."""
    def same():
        st = d.get(f"/v1/tournaments/{t}/standings?stage={stage}")
        want = {"stage": stage, "tiebreaks": st["tiebreaks"],
                "rows": [[r["player"], str(r["rank"]), tn.num(r["points"]),
                          [[n, r["tiebreaks"][n], tn.tiebreak_text(n, r["tiebreaks"][n])] for n in st["tiebreaks"]]]
                         for r in st["rows"]]}
        got = b.js(STANDINGS_JS)
        same.last = (got, want)
        return got == want
    try:
        wait_for(same, f"the page's standings of stage {stage} to be the server's")
    except AssertionError as e:
        raise AssertionError(f"{e}: page {getattr(same, 'last', None)}")


BRACKET_JS = """
const b = document.querySelector('#bracket:not([hidden]) .bracket');
if (!b) return null;
return {rounds: [...b.querySelectorAll('.bk-round')].map(r => [r.dataset.part, Number(r.dataset.round),
          [...r.querySelectorAll('.bk-match')].map(m => m.dataset.label)]),
        matches: Object.fromEntries([...b.querySelectorAll('.bk-match')].map(m => [m.dataset.label,
          [...m.querySelectorAll('.bk-slot')].map(s => s.dataset.player ? Number(s.dataset.player) : null)])),
        won: [...b.querySelectorAll('.bk-slot.won')].map(s => [s.closest('.bk-match').dataset.label, Number(s.dataset.player)]),
        lines: b.querySelectorAll('svg.bk-lines path').length};"""


def bracket_as_served(d, t, stage):
    """What BRACKET_JS must read for GET …/bracket: the rounds as columns
    (part, round, their matches in graph order), each match's sides, the
    winners marked, and a line for every side a winner fills (the reset's
    two are one line from the grand final)."""
    br = d.get(f"/v1/tournaments/{t}/bracket?stage={stage}")
    rounds = {}
    for m in sorted(br["matches"], key=lambda m: m["id"]):
        rounds.setdefault((m["part"], m["round"]), []).append(m["label"])
    lines = sum(1 for m in br["matches"] if m["part"] != "grand_final_reset"
                for s in m["slots"] if s["source"]["from"] == "winner")
    lines += sum(1 for m in br["matches"] if m["part"] == "grand_final_reset")
    won = [[m["label"], m["winner"]["player"]] for m in br["matches"] if m["winner"]]
    return br, {"matches": {m["label"]: [s["entrant"]["player"] if s["entrant"] else None for s in m["slots"]]
                            for m in br["matches"]},
                "won": won, "lines": lines, "rounds": rounds}


def wait_bracket_as_served(b, d, t, stage):
    def same():
        br, want = bracket_as_served(d, t, stage)
        got = b.js(BRACKET_JS)
        if not got:
            return False
        got_rounds = {(p, r): labels for p, r, labels in got["rounds"]}
        ok = (got_rounds == want["rounds"] and got["matches"] == want["matches"] and got["lines"] == want["lines"]
              and sorted(got["won"]) == sorted(want["won"]))
        same.last = (got, want)
        return br if ok else None
    try:
        return wait_for(same, f"the page's bracket of stage {stage} to be the server's")
    except AssertionError as e:
        raise AssertionError(f"{e}: {getattr(same, 'last', None)}")


def organise(b, w):
    """Signs the tab in with the admin token, as an organiser does once."""
    b.click("#organiser-signin summary")
    b.d.find_element("id", "organiser-token").send_keys(w.admin)
    b.click("#organiser-form button")
    b.wait_js("return !document.getElementById('organiser-actions').hidden;", "the organiser's actions")


def register_from_list(b, player):
    b.wait_js("return document.querySelector(`#register-form option[value=\"${arguments[0]}\"]`);",
              f"player {player} in the list to register", str(player))
    b.js("const f = document.getElementById('register-form'); f.querySelector('select').value = arguments[0];"
         "f.querySelector('button[type=submit]').click();", str(player))
    b.wait_js("return document.querySelector(`table.registrations tr[data-player=\"${arguments[0]}\"]`);",
              f"player {player} registered", str(player))


@test
def a_tournament_is_run_from_its_page_and_drawn_live(w):
    b, d, admin, ref = w.browser, w.daemon, w.admin, w.referee
    names = ["Ada", "Bo", "Cleo", "Dev", "Eli", "Fay", "Gil"]
    ids = tn.players(d, admin, names)
    late = tn.players(d, admin, ["Ivo"])[0]
    t = tn.tournament(d, admin, "Club night", [
        {"format": "swiss", "config": {"rounds": 2, "tiebreaks": ["buchholz", "sonneborn_berger", "omw"]}},
        {"format": "double_elimination", "advance": 4},
    ], tables=[w.table_a, w.table_b])
    w.tournament = t

    b.new_tab()
    b.open(f"{w.url}/tournament?id={t}")
    b.wait_text("#title", "Club night")
    b.wait_js("return document.body.dataset.connection === 'live';", "the page to be live")
    b.js("window.notReloaded = true;")
    organise(b, w)
    assert "access_token" not in b.d.current_url

    # registration: seven from the club's list, one new player, one more to drop
    b.click("#state-moves button[data-move=registration]")
    b.wait_text("#head", "Registration open")
    for p in ids + [late]:
        register_from_list(b, p)
    b.js("const f = document.getElementById('new-player-form');"
         "f.querySelector('[name=name]').value = 'Hana'; f.querySelector('[name=club]').value = 'Southside';"
         "f.querySelector('button[type=submit]').click();")
    b.wait_text("table.registrations", "Hana")
    regs = d.get(f"/v1/tournaments/{t}/registrations")["items"]
    assert len(regs) == 9, regs
    hana = next(r["player"] for r in regs if r["name"] == "Hana")
    assert next(r for r in regs if r["name"] == "Hana")["club"] == "Southside"
    # check-in opens with the check_in state: no button yet (the daemon would say 409)
    assert b.js("return document.querySelectorAll('table.registrations button.check-in').length;") == 0
    assert b.js("return document.querySelectorAll('table.registrations button.drop').length;") == 9

    # check-in: a button per player; Ivo is dropped (asked once more)
    b.click("#state-moves button[data-move=check_in]")
    b.wait_text("#head", "Check-in")
    for r in regs:
        if r["player"] == late:
            continue
        b.click(f"button[aria-label=\"Check in {r['name']}\"]")
        b.wait_js(f"return document.querySelector('table.registrations tr[data-player=\"{r['player']}\"].is-checked-in');",
                  f"{r['name']} checked in")
    b.click("button[aria-label=\"Drop Ivo…\"]")
    b.click_text("table.registrations button.danger", "Drop Ivo")
    b.wait_text(f"table.registrations tr[data-player=\"{late}\"]", "Dropped")
    regs = {r["player"]: r for r in d.get(f"/v1/tournaments/{t}/registrations")["items"]}
    assert all(r["checked_in"] for p, r in regs.items() if p != late) and regs[late]["status"] == "dropped"
    b.wait_text("#head", "8 of 9 checked in")

    # start, pair round 1 from the page; pairing again is the server's 409, in its words
    b.click("#state-moves button[data-move=running]")
    b.wait_text("#head", "Running")
    b.click("#pair")
    b.wait_text("#organiser-output", "Stage 1, round 1: 4 matches paired")
    r1 = tn.matches(d, t, stage=1, round=1)
    b.wait_js("return document.querySelectorAll('#round-body article.round-match').length === 4;", "round 1's four tables")
    for m in r1:
        card = f"#round-body article[data-stage-match=\"{m['id']}\"]"
        b.wait_text(card, f"Table {m['table_no']}")
        for p in m["participants"]:
            b.wait_text(card, p["name"])
    b.click("#pair")
    b.wait_text("#message", "round 1 is not finished")
    b.wait_text("#message", ", ".join(str(m["id"]) for m in r1))

    # call the first match to its table from the page: the queue says it is being played
    first = r1[0]
    b.click(f"#round-body article[data-stage-match=\"{first['id']}\"] form.call-form button")
    b.wait_text("#organiser-output", "called to table A")
    b.wait_text(f"#round-body article[data-stage-match=\"{first['id']}\"]", "Playing")
    b.wait_text(f"#queue-body li[data-stage-match=\"{first['id']}\"]", "Playing")
    live = d.get(f"/v1/tournaments/{t}/matches/{first['id']}")["match"]
    assert live and d.get(f"/v1/matches/{live}")["table"] == w.table_a
    d.post(f"/v1/matches/{live}/abort", {}, ref)           # played by hand instead (below)

    # round 1 and 2 results by REST: the tables and the standings follow, tie-breaks and all
    wait_for(lambda: tn.matches(d, t, stage=1, round=1)[0]["state"] == "pending", "the aborted match to be pending again")
    tn.play_round(d, ref, t, tn.matches(d, t, stage=1, round=1), flip={1})
    b.wait_text(f"#round-body article[data-stage-match=\"{first['id']}\"] tr.first", "1st")
    wait_standings_as_served(b, d, t, 1)
    b.click("#pair")
    b.wait_text("#organiser-output", "Stage 1, round 2")
    b.wait_text("#round-heading", "round 2")
    tn.play_round(d, ref, t, tn.matches(d, t, stage=1, round=2), flip={0, 3})
    wait_standings_as_served(b, d, t, 1)
    heads = b.js("return [...document.querySelectorAll('table.standings thead th[data-tiebreak] abbr')].map(a => [a.innerText, a.title]);")
    assert [h[0] for h in heads] == ["Buchholz", "SB", "OMW%"] and "Sonneborn-Berger" in heads[1][1], heads
    assert any("%" in x for x in b.js("return [...document.querySelectorAll('td.tb[data-tiebreak=omw]')].map(td => td.innerText);"))

    # the top 4 go on to a double elimination: drawn as a bracket
    b.click("#pair")
    b.wait_text("#organiser-output", "Stage 2, round 1: 2 matches paired")
    br = wait_bracket_as_served(b, d, t, 2)
    parts = b.js("return [...document.querySelectorAll('.bk-part-title')].map(e => e.innerText);")
    assert parts == ["Winners bracket", "Losers bracket"], parts
    got = b.js(BRACKET_JS)
    assert [r[:2] for r in got["rounds"]] == [["winners", 1], ["winners", 2], ["losers", 1], ["losers", 2],
                                              ["grand_final", 1], ["grand_final_reset", 1]], got["rounds"]
    assert len(got["matches"]) == 7 and got["lines"] == 6, got
    # columns left to right, the grand final right of both brackets and between their finals
    geo = b.js("""const r = (l) => document.querySelector(`.bk-match[data-label="${l}"]`).getBoundingClientRect();
        return Object.fromEntries(['W1-1', 'W1-2', 'WF', 'L1-1', 'L2-1', 'GF', 'GF2'].map(l => [l, [r(l).left, r(l).top + r(l).height / 2]]));""")
    assert geo["W1-1"][0] == geo["W1-2"][0] < geo["WF"][0] < geo["GF"][0] < geo["GF2"][0], geo
    assert geo["W1-1"][1] < geo["WF"][1] < geo["W1-2"][1], geo
    assert geo["L1-1"][0] < geo["L2-1"][0] < geo["GF"][0] and geo["WF"][1] < geo["GF"][1] < geo["L2-1"][1], geo
    wait_standings_as_served(b, d, t, 2)
    assert b.js("return [...document.querySelectorAll('table.standings thead th')].some(th => th.innerText === 'Place');")

    # a result: its winner goes on to the winners final, its loser drops to the losers bracket, live
    w1 = next(m for m in br["matches"] if m["label"] == "W1-1")
    sm = d.get(f"/v1/tournaments/{t}/matches/{w1['stored_match']}")
    tn.record(d, ref, t, sm, winner_first=False)
    winner, loser = sm["participants"][1]["player"], sm["participants"][0]["player"]
    b.wait_js(f"return document.querySelector('.bk-match[data-label=\"WF\"] .bk-slot[data-slot=\"0\"][data-player=\"{winner}\"]');",
              "the winner of W1-1 in the winners final")
    b.wait_js(f"return document.querySelector('.bk-match[data-label=\"L1-1\"] .bk-slot[data-slot=\"0\"][data-player=\"{loser}\"]');",
              "the loser of W1-1 in the losers bracket")
    b.wait_js(f"return document.querySelector('.bk-match[data-label=\"W1-1\"] .bk-slot.won[data-player=\"{winner}\"]');",
              "W1-1's winner marked")
    assert "✓" in b.text(".bk-match[data-label=\"W1-1\"] .bk-slot.won")
    wait_bracket_as_served(b, d, t, 2)
    b.wait_text("#announcements", "Result, stage 2 round 1")
    assert b.js("return window.notReloaded === true;"), "the page was reloaded"
    assert hana in regs


@test
def the_leaderboard_and_a_players_rating_chart(w):
    b, d = w.browser, w.daemon
    b.new_tab()
    b.open(f"{w.url}/leaderboard?game=crash-pilot")

    def rows():
        return b.js("return [...document.querySelectorAll('table.leaderboard tbody tr')].map(tr => "
                    "[Number(tr.dataset.player), tr.querySelector('th').innerText, Number(tr.querySelector('.rating').dataset.value)]);")

    for system in ("openskill", "glicko2"):
        if system == "glicko2":
            b.js("const s = document.getElementById('system'); s.value = 'glicko2'; s.dispatchEvent(new Event('change'));")
            b.wait_js("return document.querySelector('table.leaderboard[data-system=glicko2]');", "the Glicko-2 board")
            assert "system=glicko2" in b.d.current_url
        key = "ordinal" if system == "openskill" else "rating"
        board = d.get(f"/v1/leaderboards/crash-pilot?system={system}")["items"]
        assert board, f"no {system} ratings"
        wait_for(lambda: rows() == [[r["player"], r["name"], r["rating"][key]] for r in board], f"the {system} board as served")
    b.wait_js("return document.body.dataset.connection === 'live';", "the leaderboard to be live")

    # the player with the longest history: one point per rated match, and the same as a table
    player = max(board, key=lambda r: r["games"])["player"]
    b.new_tab()
    b.open(f"{w.url}/player?id={player}&game=crash-pilot")
    for system in ("openskill", "glicko2"):
        if system == "glicko2":
            b.js("const s = document.getElementById('system'); s.value = 'glicko2'; s.dispatchEvent(new Event('change'));")
            b.wait_js("return document.querySelector('table.history[data-system=glicko2]');", "the Glicko-2 history")
        hist = d.get(f"/v1/players/{player}/ratings?game=crash-pilot&system={system}")["items"]
        assert len(hist) >= 2, hist
        b.wait_js("return document.querySelectorAll('svg.chart circle.point').length === arguments[0] && "
                  "document.querySelectorAll('table.history tbody tr').length === arguments[0];",
                  f"{len(hist)} points and rows", len(hist))
        value = "ordinal" if system == "openskill" else "rating"
        points = b.js("return [...document.querySelectorAll('svg.chart circle.point')].map(c => Number(c.dataset.value));")
        assert points == [it["after"][value] for it in hist], (points, hist)
        name = b.js("const s = document.querySelector('svg.chart[role=img]'); return s && "
                    "s.getAttribute('aria-labelledby').split(' ').map(id => document.getElementById(id).textContent).join(' | ');")
        assert name and f"{len(hist)} rated matches" in name, name
        assert b.js("return document.querySelector('svg.chart polyline.series') !== null;")
        axes = b.js("return [...document.querySelectorAll('svg.chart text.axis-title')].map(t => t.textContent);")
        assert "Rated matches, oldest first" in axes and any(("Glicko-2" if system == "glicko2" else "OpenSkill") in a for a in axes), axes
    w.rated_player = player


@test
def the_tournament_pages_are_labelled_and_readable(w):
    b, d = w.browser, w.daemon
    pages = ["/tournaments", f"/tournament?id={w.tournament}", "/leaderboard?game=crash-pilot",
             f"/player?id={w.rated_player}", "/player"]
    problems = []
    for p in pages:
        b.new_tab()
        b.open(w.url + p)
        b.wait_js("return document.body.dataset.connection === 'live';", f"{p} to be live")
        if p.startswith("/tournament?"):
            organise(b, w)                  # the organiser's controls too
            b.wait_js("return document.querySelector('.bracket') && document.querySelector('table.standings') && "
                      "document.querySelector('#round-body .call-form, #round-body article');", "the tournament drawn")
        elif p.startswith("/player?"):
            b.wait_js("return document.querySelector('svg.chart');", "the chart")
        elif p.startswith("/leaderboard"):
            b.wait_js("return document.querySelector('table.leaderboard');", "the leaderboard")
        elif p == "/tournaments":
            b.wait_text(f"tr[data-tournament=\"{w.tournament}\"]", "Club night")
        elif p == "/player":
            # live comes before the list is fetched and drawn
            b.wait_js("return document.querySelector('ul.player-list li');", "the players' list")
        problems += [f"{p}: {x}" for x in b.js(checks.LABELS_JS)]
        low = b.js(checks.CONTRAST_JS, 4.5)
        problems += [f"{p}: contrast {x}" for x in low]
        assert b.js("return document.querySelectorAll('[data-checked-contrast]').length;") > 10, f"{p}: checked too little"
    assert not problems, "\n".join(problems)


# ---- accessibility -----------------------------------------------------------

@test
def every_control_is_labelled_and_pages_have_landmarks(w):
    b, d, ref = w.browser, w.daemon, w.referee
    link = d.post(f"/v1/tables/{w.table_a}/seats/2/token", {}, ref)["station_url"]
    m = w.match("crash-pilot", ["Ana", "Ben"], seed=3, config=CP_FAST)
    pages = ["/", "/scoreboard", "/league", f"/table?table={w.table_a}", link, "/referee", f"/referee?match={m}"]
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
    for want in ("scoreboard", "league", "referee", f"table?table={w.table_a}", f"table?table={w.table_b}", "tournaments",
                 "leaderboard", "leaderboard?game=crash-pilot"):
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


@test
def the_tournament_page_recovers_after_the_daemon_restarts(w):
    b, d, ref = w.browser, w.daemon, w.referee
    t = w.tournament
    b.new_tab()
    b.open(f"{w.url}/tournament?id={t}")
    b.wait_js("return document.body.dataset.connection === 'live' && document.querySelector('.bracket');", "the bracket, live")
    b.js("window.notReloaded = true;")

    d.kill()
    b.wait_js("return document.body.dataset.connection === 'reconnecting';", "the page to show it is reconnecting")
    b.wait_text("#connection", "Reconnecting")
    assert b.js("return getComputedStyle(document.getElementById('bracket-body')).opacity;") != "1", "stale data is not greyed"
    d.start()
    b.wait_js("return document.body.dataset.connection === 'live';", "the page to be live again")
    # a result after the restart reaches the bracket without a reload
    br = d.get(f"/v1/tournaments/{t}/bracket?stage=2")
    w12 = next(m for m in br["matches"] if m["label"] == "W1-2")
    sm = d.get(f"/v1/tournaments/{t}/matches/{w12['stored_match']}")
    tn.record(d, ref, t, sm)
    winner = sm["participants"][0]["player"]
    b.wait_js(f"return document.querySelector('.bk-match[data-label=\"WF\"] .bk-slot[data-slot=\"1\"][data-player=\"{winner}\"]');",
              "the winner of W1-2 in the winners final")
    wait_bracket_as_served(b, d, t, 2)
    assert b.js("return window.notReloaded === true;"), "the page was reloaded"


# ---- Pitch Fleet (tests/web/pitch_fleet.py) ----

for _fn in pf.tests(need_game=need_game, wait_outcome=wait_outcome, checks=checks):
    test(_fn)


# ---- the league scoreboard (tests/web/league.py) ----

league.tests(test)


# ---- the run -----------------------------------------------------------------

def run_tests(w):
    # ARBITER_WEB_TESTS=name,name runs only those (while working on a page;
    # a test may stand on one before it, as the generic renderer's on the
    # station's).
    import os
    only = [n for n in os.environ.get("ARBITER_WEB_TESTS", "").split(",") if n]
    chosen = [fn for fn in results if not only or fn.__name__ in only]
    print(f"1..{len(chosen)}", flush=True)
    failed = 0
    for i, fn in enumerate(chosen, 1):
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
