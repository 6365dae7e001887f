"""tests/web/pitch_fleet.py — Pitch Fleet in the browser tests: a referee
plays a turn through the console (the card and the ship picked, the shot
reported by tapping the board picture, the changes previewed rule by rule,
then sent) while a table display shows the new scores and the
explanation; a charging satellite's draw kept, then used, from the
console; a solo game's challenge on the table display and the referee's
console, the rest played over REST, and its evaluation at the end.

run.py registers these tests (tests(...) hands them its helpers).  Every
wait is for the page or the view to say what the test waits for.
ARBITER_WEB_SHOTS=DIR keeps a screenshot of each page looked at (while
working on the module)."""
import os

from harness import wait_for

H = {}

# Cards whose pick needs a pre-move field (docs/games/pitch-fleet.md,
# "Inputs"), or whose shot is not a plain shot: the tests pick others.
PLAIN = {"B1", "B2", "B3", "B5", "B7", "B8", "B9"}


def tests(**helpers):
    """The tests, in order; helpers: need_game, wait_outcome, checks."""
    H.update(helpers)
    return [the_referee_plays_a_pitch_fleet_turn_and_the_table_shows_it,
            a_pitch_fleet_charging_draw_is_kept_then_used_from_the_console,
            a_pitch_fleet_solo_game_shows_its_challenge_and_its_evaluation]


def shot(b, name):
    d = os.environ.get("ARBITER_WEB_SHOTS")
    if d:
        os.makedirs(d, exist_ok=True)
        import base64
        size = b.js("return [document.documentElement.scrollWidth, document.documentElement.scrollHeight];")
        png = b.d.execute_cdp_cmd("Page.captureScreenshot", {"captureBeyondViewport": True, "clip": {
            "x": 0, "y": 0, "width": size[0], "height": size[1], "scale": 1}})["data"]
        with open(os.path.join(d, f"pitch-fleet-{name}.png"), "wb") as f:
            f.write(base64.b64decode(png))


def no_module_errors(b):
    bad = [e["message"] for e in b.d.get_log("browser") if e["level"] == "SEVERE" and "pitch-fleet" in e["message"]]
    assert not bad, bad


# ---- REST, as a referee -------------------------------------------------------

def ref_view(d, ref, m):
    return d.get(f"/v1/matches/{m}/referee", ref)["view"]


def public_view(d, m):
    return d.get(f"/v1/matches/{m}")["view"]


def send(d, ref, m, kind, **fields):
    return d.post(f"/v1/matches/{m}/inputs", {"kind": kind, **fields}, ref)


def wait_phase(d, ref, m, phases):
    return wait_for(lambda: (lambda v: v if v["phase"] in phases else None)(ref_view(d, ref, m)),
                    f"match {m} to be in phase {phases}")


def plain_card(v):
    """A face-up card that needs no pre-move."""
    for p in v["piles"]:
        if p["top"] and p["top"]["code"] in PLAIN:
            return p["top"]
    raise AssertionError(f"no plain face-up card in {[p['top'] for p in v['piles']]}")


def goal_location(v, kind):
    board = next(b for b in v["layout"] if b["planet"] == v["goal_planet"])
    return next(l for l in board["locations"] if l["kind"] == kind)


def player_name(d, m, seat):
    return next(s["name"] for s in d.get(f"/v1/matches/{m}")["seats"] if s["seat"] == seat)


def seat_of(v, seat):
    return next(s for s in v["seats"] if s["seat"] == seat)


def open_console(w, m):
    b = w.browser
    b.open(f"{w.url}/referee?match={m}")
    b.d.find_element("id", "token-input").send_keys(w.referee)
    b.click("#token-form button")
    b.wait_js("return document.querySelector('#steps.pf-referee .pf-ref-head');", "Pitch Fleet's turn in the console")


def confirm_proposal(b):
    """The console's preview is up: Send it, and wait for it to be sent."""
    H["wait_outcome"](b, "preview")
    b.click_text("#proposal-body button", "Send")
    H["wait_outcome"](b, "sent")


def tap(b, selector):
    """A real pointer tap on an element of the board picture."""
    wait_for(lambda: b.d.find_element("css selector", selector).is_displayed(), f"{selector} on the picture")
    b.d.find_element("css selector", selector).click()


# ---- the tests ----------------------------------------------------------------

def the_referee_plays_a_pitch_fleet_turn_and_the_table_shows_it(w):
    b, d, ref = w.browser, w.daemon, w.referee
    H["need_game"](w, "pitch-fleet")
    m = w.match("pitch-fleet", ["Ana", "Ben", "Cy", "Dee"], seed=5)
    b.new_tab()
    b.open(f"{w.url}/table?match={m}")
    display = b.d.current_window_handle
    b.wait_js("return document.querySelector('.pf-table .pf-svg');", "the board picture on the table display")
    b.d.switch_to.new_window("tab")
    console = b.d.current_window_handle
    open_console(w, m)
    for form in ("pick", "shot", "end_turn", "restart", "charge", "foul"):
        assert not b.js(f"return document.querySelector('form[data-input=\"{form}\"]');"), f"{form} is a generic form"
    b.click("#start")
    v = wait_phase(d, ref, m, ("pick",))
    seat = v["current_seat"]
    me = seat_of(v, seat)
    card = plain_card(v)
    # nine boards, every location of the layout drawn, the start and the goal marked
    assert b.js("return document.querySelectorAll('#steps .pf-board').length;") == 0   # no picture before the pick
    b.d.switch_to.window(display)
    b.wait_js("return document.querySelectorAll('.pf-table .pf-board').length === 9;", "nine boards")
    n_locs = sum(len(x["locations"]) for x in v["layout"])
    assert b.js("return document.querySelectorAll('.pf-table .pf-loc').length;") == n_locs
    assert b.js("return document.querySelector('.pf-table .pf-board[data-goal=\"true\"]').dataset.planet;") == v["goal_planet"]
    assert b.js("return document.querySelector('.pf-table .pf-board[data-start=\"true\"]').dataset.planet;") == v["start_planet"]
    assert b.js("return !!document.querySelector('.pf-table .pf-board[data-goal=\"true\"] .pf-bonus');"), "the 3 VP token on the goal"
    b.wait_text(".pf-table .pf-state", f"Stage 1 of {v['stages']}, round 1 of 3")
    b.wait_text(".pf-table .pf-piles", card["effect"])
    b.d.switch_to.window(console)

    # 1. the card (by the card) and the ship: the player's own, preselected
    b.click(f"#steps .pf-card-button[data-handle=\"{card['handle']}\"]")
    b.wait_js(f"return document.querySelector('#steps .pf-card-button[data-handle=\"{card['handle']}\"]').getAttribute('aria-pressed') === 'true';",
              "the card chosen")
    assert b.js(f"return document.querySelector('#steps .pf-ship-button[data-ship=\"{me['ship']}\"]').getAttribute('aria-pressed');") == "true"
    shot(b, "pick")
    b.click("#steps .pf-preview-pick")
    H["wait_outcome"](b, "preview")
    assert ref_view(d, ref, m)["phase"] == "pick", "a preview picked"
    b.click_text("#proposal-body button", "Send")
    H["wait_outcome"](b, "sent")
    v = wait_phase(d, ref, m, ("shot",))
    assert v["turn"]["card"]["handle"] == card["handle"] and v["turn"]["ship"] == me["ship"]

    # 2. the shot, on the picture: the ship came to rest on the goal's VP satellite
    sat = goal_location(v, "vp_satellite")
    b.wait_js("return document.querySelectorAll('#steps .pf-report-picture .pf-board').length === 9;", "the picture to report on")
    b.wait_js(f"return document.querySelector('#steps .pf-ship[data-ship=\"{me['ship']}\"]');", "the moved ship on the start")
    tap(b, f"#steps .pf-loc[data-loc=\"{sat['id']}\"]")
    b.wait_js(f"return document.querySelector('#steps .pf-loc[data-loc=\"{sat['id']}\"]').getAttribute('aria-pressed') === 'true';",
              "the tapped satellite marked")
    b.wait_text("#steps .pf-at", "satellite")
    shot(b, "report")
    b.click("#steps .pf-preview-shot")
    H["wait_outcome"](b, "preview")
    b.wait_text("#proposal-body", "shot")
    b.click_text("#proposal-body button", "Send")
    H["wait_outcome"](b, "sent")
    v = wait_phase(d, ref, m, ("decide",))
    pending = v["turn"]["pending"]
    assert [(p["seat"], p["delta"], p["rule"]) for p in pending] == [(seat, sat["stars"], "vp_satellite")], pending

    # 3. the changes rule by rule, then the turn ends
    b.wait_text("#steps .pf-pending", f"+{sat['stars']} VP")
    b.wait_text("#steps .pf-pending", pending[0]["why"])
    assert b.js("return document.querySelector('#steps .pf-restart').disabled;") is False, "a restart is allowed"
    b.d.switch_to.window(display)
    b.wait_text(".pf-table .pf-pending", pending[0]["why"])
    b.d.switch_to.window(console)
    shot(b, "decide")
    b.click("#steps .pf-end-turn")
    confirm_proposal(b)
    v = wait_for(lambda: (lambda x: x if x["current_seat"] != seat else None)(ref_view(d, ref, m)), "the next turn")
    assert seat_of(v, seat)["score"] == 3 + sat["stars"]

    # the table display: the new score and the last turn's explanation
    b.d.switch_to.window(display)
    b.wait_js(f"return document.querySelector('.pf-table tr[data-seat=\"{seat}\"] .pf-vp').innerText === arguments[0];",
              "the new score on the table display", str(3 + sat["stars"]))
    b.wait_text(".pf-table .pf-last", pending[0]["why"])
    b.wait_text(".pf-table .pf-last", f"+{sat['stars']} VP")
    b.wait_js(f"return document.querySelector('.pf-table .pf-ship[data-ship=\"{me['ship']}\"]');", "the ship on the picture")
    b.wait_text(".pf-table .pf-state", f"{player_name(d, m, v['current_seat'])}'s turn")
    shot(b, "table")
    problems = b.js(H["checks"].LABELS_JS) + b.js(H["checks"].CONTRAST_JS, 4.5)
    assert not problems, problems

    # the next turn: its ship knocks the first one onto the goal planet and
    # comes to rest there too, all tapped on the picture
    nxt = v["current_seat"]
    mine = seat_of(v, nxt)["ship"]
    send(d, ref, m, "pick", card=plain_card(v)["handle"], ship=mine)
    v = wait_phase(d, ref, m, ("shot",))
    goal = v["goal_planet"]
    b.d.switch_to.window(console)
    b.wait_js(f"return document.querySelector('#steps .pf-report-picture .pf-ship[data-ship=\"{mine}\"]');", "the next ship on the start")
    tap(b, f"#steps .pf-report-picture .pf-ship[data-ship=\"{me['ship']}\"]")
    b.wait_js(f"return document.querySelector('#steps li.pf-other[data-ship=\"{me['ship']}\"]').dataset.state === 'knocked';",
              "the tapped ship marked knocked")
    tap(b, f"#steps .pf-loc[data-loc=\"{goal}\"]")          # where the knocked ship ended
    b.wait_text(f"#steps li.pf-other[data-ship=\"{me['ship']}\"] .pf-ended", goal.capitalize())
    # where the moved ship ended, from the keyboard: the location is a
    # button, and keeps the focus when the picture is drawn again
    from selenium.webdriver.common.keys import Keys
    b.d.find_element("css selector", f"#steps .pf-loc[data-loc=\"{goal}\"]").send_keys(Keys.ENTER)
    b.wait_text("#steps .pf-at", f"It touches now: {goal.capitalize()}")
    assert b.js("return document.activeElement.dataset.loc;") == goal
    assert b.js("const c = document.querySelector('#steps input[name=\"collided\"]'); return c.checked && c.disabled;"), \
        "a knock is a collision"
    shot(b, "knock")
    b.click("#steps .pf-preview-shot")
    confirm_proposal(b)
    v = wait_phase(d, ref, m, ("decide",))
    assert v["turn"]["record_due"] and not v["turn"]["may_restart"], v["turn"]
    b.wait_js("return document.querySelector('#steps .pf-restart').disabled;", "no restart after a collision")
    b.wait_text("#steps .pf-pending", "record token goes to the goal")
    b.click("#steps .pf-end-turn")
    confirm_proposal(b)
    pv = wait_for(lambda: (lambda x: x if x["current_seat"] != nxt else None)(public_view(d, m)), "the third turn")
    assert {s["ship"]: s["at"] for s in pv["ships"] if s["on_board"]} == {me["ship"]: [goal], mine: [goal]}, pv["ships"]
    assert [r["ship"] for r in pv["records"] if r["on_goal"]] == [mine], pv["records"]
    b.wait_text("#announcements", "record token moves to the goal planet")
    b.d.switch_to.window(display)
    b.wait_js(f"return document.querySelector('.pf-table .pf-board[data-goal=\"true\"] .pf-record[data-ship=\"{mine}\"]');",
              "the record token on the goal, on the picture")
    b.wait_text(".pf-table .pf-tokens", "Record tokens on the goal")
    assert b.js(f"return document.querySelectorAll('.pf-table .pf-ship[data-ship=\"{me['ship']}\"], .pf-table .pf-ship[data-ship=\"{mine}\"]').length;") == 2

    # the third turn: a card with a pre-move (B10, Hyperjump) on a
    # team-mate's ship shifted first; a shot into open space, the restart
    # card, then a foul: nothing scored
    b.d.switch_to.window(console)
    v = ref_view(d, ref, m)
    third = v["current_seat"]
    team = seat_of(v, third)["team"]
    mate = next(s for s in v["ships"] if s["team"] == team and s["owner_seat"] != third and s["on_board"])
    hop = next(p["top"] for p in v["piles"] if p["top"] and p["top"]["code"] == "B10")
    b.click(f"#steps .pf-card-button[data-handle=\"{hop['handle']}\"]")
    b.click(f"#steps .pf-ship-button[data-ship=\"{mate['ship']}\"]")
    b.wait_js("return document.querySelector('#steps select[name=\"relocate_to\"]');", "B10's shift")
    assert not b.js("return document.querySelector('#steps select[name=\"start_at\"]');"), "start_at for a ship on the board"
    b.js("const s = document.querySelector('#steps select[name=\"relocate_to\"]'); s.value = arguments[0];"
         "s.dispatchEvent(new Event('change'));", v["start_planet"])
    shot(b, "premove")
    b.click("#steps .pf-preview-pick")
    confirm_proposal(b)
    v = wait_phase(d, ref, m, ("shot",))
    assert v["turn"]["ship"] == mate["ship"] and v["turn"]["began_at"] == [v["start_planet"]], v["turn"]
    b.wait_js("return document.querySelector('#steps .pf-preview-shot');", "the shot's report")
    b.click("#steps .pf-preview-shot")              # nothing tapped: open space
    confirm_proposal(b)
    v = wait_phase(d, ref, m, ("decide",))
    assert v["turn"]["may_restart"] and v["turn"]["pending"] == [], v["turn"]
    b.click("#steps .pf-restart")
    confirm_proposal(b)
    v = wait_phase(d, ref, m, ("shot",))
    assert not seat_of(v, third)["restart_card"]
    scores = {p["seat"]: p["score"] for p in v["seats"]}
    b.click("#steps .pf-foul")
    confirm_proposal(b)
    v = wait_for(lambda: (lambda x: x if x["current_seat"] != third else None)(ref_view(d, ref, m)), "the fourth turn")
    assert {p["seat"]: p["score"] for p in v["seats"]} == scores
    b.wait_text("#announcements", "Foul")
    problems = b.js(H["checks"].LABELS_JS)
    assert not problems, problems
    no_module_errors(b)
    d.post(f"/v1/matches/{m}/abort", {}, ref)


def a_pitch_fleet_charging_draw_is_kept_then_used_from_the_console(w):
    b, d, ref = w.browser, w.daemon, w.referee
    H["need_game"](w, "pitch-fleet")
    m = w.match("pitch-fleet", ["Eve", "Fin"], table=w.table_b, seed=7)
    w.start(m)
    b.new_tab()
    b.open(f"{w.url}/scoreboard")
    board = b.d.current_window_handle
    tile = f"article.tile[data-table=\"{w.table_b}\"]"
    b.wait_text(f"{tile} .pf-state", "Stage 1 of")
    b.d.switch_to.new_window("tab")
    console = b.d.current_window_handle
    open_console(w, m)

    def to_charge():
        v = wait_phase(d, ref, m, ("pick",))
        me = seat_of(v, v["current_seat"])
        send(d, ref, m, "pick", card=plain_card(v)["handle"], ship=me["ship"])
        charge = goal_location(v, "charging_satellite")
        send(d, ref, m, "shot", at=[charge["id"]])
        return wait_phase(d, ref, m, ("charge",)), me

    # keep: the drawn card face down, the turn scored
    v, me = to_charge()
    drawn = v["referee"]["drawn"]
    b.wait_js(f"return document.querySelector('#steps .pf-charge .pf-card[data-handle=\"{drawn['handle']}\"]');", "the drawn card")
    b.wait_text("#steps .pf-charge", drawn["effect"])
    assert b.js("return document.querySelector('#steps .pf-end-turn').disabled;"), "end_turn before the draw is answered"
    shot(b, "charge")
    # the drawing seat's station shows the drawn card; the other seat's does not
    for seat in (1, 2):
        token = d.post(f"/v1/matches/{m}/seats/{seat}/token", {}, ref)["token"]
        b.d.switch_to.new_window("tab")
        b.open(f"{w.url}/station?match={m}&seat={seat}&access_token={token}")
        b.wait_js("return document.querySelector('.pf-table .pf-svg');", f"seat {seat}'s station")
        if seat == me["seat"]:
            b.wait_js(f"return document.querySelector('.pf-drawn .pf-card[data-handle=\"{drawn['handle']}\"]');",
                      "the drawn card on its seat's station")
        else:
            b.wait_text(".pf-table .pf-turn-line", "a charging satellite")
            assert not b.js("return document.querySelector('.pf-drawn');"), "another seat's drawn card on a station"
            assert not b.js(f"return document.querySelector('[data-handle=\"{drawn['handle']}\"]');"), "the drawn card on another seat's station"
        b.d.close()
        b.d.switch_to.window(console)
    b.click("#steps .pf-keep")
    confirm_proposal(b)
    v = wait_phase(d, ref, m, ("decide",))
    assert seat_of(v, me["seat"])["kept"] == 1
    b.click("#steps .pf-end-turn")
    confirm_proposal(b)

    # the scoreboard's tile: whose turn, the teams, each VP, the face-up cards in words
    v = wait_phase(d, ref, m, ("pick",))
    b.d.switch_to.window(board)
    b.wait_text(f"{tile} .pf-state", f"{player_name(d, m, v['current_seat'])}'s turn")
    for p in v["seats"]:
        b.wait_js(f"return document.querySelector('{tile} tr[data-seat=\"{p['seat']}\"] .pf-vp')?.innerText === arguments[0];",
                  f"seat {p['seat']}'s VP on the tile", str(p["score"]))
    b.wait_text(f"{tile} .pf-teams", "Red team:")
    for p in v["piles"]:
        if p["top"]:
            b.wait_text(f"{tile} .pf-tile-cards", p["top"]["effect"])
    b.wait_text(f"{tile} .pf-tokens", "3 VP token on the goal")
    shot(b, "tile")
    b.d.switch_to.window(console)

    # use: an extra attempt with the drawn card, the only card the console offers
    v, me = to_charge()
    drawn = v["referee"]["drawn"]
    b.wait_js(f"return document.querySelector('#steps .pf-charge .pf-card[data-handle=\"{drawn['handle']}\"]');", "the second drawn card")
    b.click("#steps .pf-use")
    confirm_proposal(b)
    v = wait_phase(d, ref, m, ("pick",))
    assert v["turn"]["card"]["handle"] == drawn["handle"] and v["current_seat"] == me["seat"]
    b.wait_js(f"return [...document.querySelectorAll('#steps .pf-card-button')].map((e) => e.dataset.handle).join() === arguments[0];",
              "the drawn card as the only choice", drawn["handle"])
    b.wait_text("#steps .pf-pile-of", "the drawn card")
    problems = b.js(H["checks"].LABELS_JS)
    assert not problems, problems
    no_module_errors(b)
    d.post(f"/v1/matches/{m}/abort", {}, ref)


def a_pitch_fleet_solo_game_shows_its_challenge_and_its_evaluation(w):
    b, d, ref = w.browser, w.daemon, w.referee
    H["need_game"](w, "pitch-fleet")
    m = w.match("pitch-fleet", ["Gil"], seed=9)
    b.new_tab()
    b.open(f"{w.url}/table?match={m}")
    display = b.d.current_window_handle
    w.start(m)
    v = wait_phase(d, ref, m, ("attempt",))
    c = v["challenge"]
    b.wait_text(".pf-table .pf-challenge h3", f"Challenge {c['number']}")
    b.wait_text(".pf-table .pf-setup", c["setup"])
    b.wait_text(".pf-table .pf-goal", c["goal"])
    b.wait_text(".pf-table .pf-vp-left", f"{c['vp_left']} of {c['vp']}")
    shot(b, "solo-table")

    # the referee: a success from the console, in one move
    b.d.switch_to.new_window("tab")
    open_console(w, m)
    b.wait_text("#steps .pf-challenge", c["goal"])
    b.click("#steps .pf-success")
    confirm_proposal(b)
    v = wait_for(lambda: (lambda x: x if x["challenges_done"] else None)(ref_view(d, ref, m)), "the first challenge done")
    assert v["challenges_done"][0] == {"number": c["number"], "result": "success", "vp": c["vp"]}, v["challenges_done"]

    # the rest over REST: a failure, then successes until the end
    failed = False
    for _ in range(40):
        v = ref_view(d, ref, m)
        if v["phase"] == "finished":
            break
        if not failed:
            send(d, ref, m, "attempt", result="failure", moves=1)
            failed = True
        else:
            send(d, ref, m, "attempt", result="success", moves=1)
    v = wait_phase(d, ref, m, ("finished",))
    assert v["evaluation"], v
    b.d.switch_to.window(display)
    b.wait_text(".pf-table .pf-evaluation", f"Evaluation: {v['evaluation']}")
    b.wait_text(".pf-table .pf-total", f"Total: {v['total']} VP")
    assert b.js("return document.querySelectorAll('.pf-table .pf-done tbody tr').length;") == len(v["challenges_done"])
    shot(b, "solo-end")
    problems = b.js(H["checks"].LABELS_JS) + b.js(H["checks"].CONTRAST_JS, 4.5)
    assert not problems, problems
    no_module_errors(b)
