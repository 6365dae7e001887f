"""tests/web/crazy_pilot.py — Crazy Pilot in the browser tests: the scene
drawing's vocabulary (engine/crazy_cards.h, every enum by its JSON name),
the script that draws sample faces with web/games/crazy-pilot/scene.js in
a page, and playing a match through the REST inputs of the game
(docs/games/crazy-pilot.md: resolve, shout, slap, drive), as a referee.
Every wait is for the view to say what the test waits for."""
from harness import wait_for

# engine/crazy_cards.h, in the header's order.
ROADS = ["straight", "fork_left", "fork_right", "crossroads", "t_junction", "dead_end"]
LIGHTS = ["none", "red", "amber", "green"]
SIGNS = ["none", "stop", "give_way", "no_entry", "road_closed", "keep_left", "keep_right", "speed_limit"]
MARKINGS = ["none", "zebra", "level_crossing"]
ITEMS = ["car", "truck", "bus", "tractor", "bicycle", "pedestrian", "child", "dog", "cow", "ball", "cone",
         "roadworks", "tree", "rock", "hole", "flood", "monster", "train", "zombie", "scarecrow", "mannequin"]

# The match's settings in the tests: no race ends by its deadline and no
# automatic "Driiiiive!" while a test looks at the race (the longest each
# setting allows); the tests slap and drive themselves.
CZ_SLOW = {"zombie": {"slap_deadline_ms": 60000, "resume_ms": 120000}}


def scene(road="straight", lanes=3, car_lane=2, light="none", sign="none", marking="none", items=()):
    return {"road": road, "lanes": lanes, "car_lane": car_lane, "light": light, "sign": sign, "marking": marking,
            "items": [{"kind": k, "lane": lane, "row": row} for k, lane, row in items]}


def sample_faces():
    """Faces that together hold every road, light, sign, marking and item
    kind; item kinds at most 8 a scene, each at its own lane and row."""
    faces = []
    places = [(lane, row) for row in (1, 2, 3) for lane in (0, 1, 2, 3, 4)]
    for i in range(0, len(ITEMS), 7):
        kinds = ITEMS[i:i + 7]
        faces.append({"handle": f"{len(faces):08x}", "name": f"items {', '.join(kinds)}",
                      "scene": scene(items=[(k, *places[j * 2 % len(places)]) for j, k in enumerate(kinds)])})
    for road in ROADS:
        faces.append({"handle": f"{len(faces):08x}", "name": f"road {road}", "scene": scene(road=road, lanes=2, car_lane=1)})
    for light, sign, marking in zip(LIGHTS + LIGHTS, SIGNS, MARKINGS + MARKINGS + MARKINGS):
        faces.append({"handle": f"{len(faces):08x}", "name": f"light {light} sign {sign} marking {marking}",
                      "scene": scene(lanes=1, car_lane=1, light=light, sign=sign, marking=marking)})
    return faces


# Draws each face with cardFigure() into a fresh <div id="cz-samples"> and
# returns what the tests read: the module's kinds, and per figure its
# accessible name, caption, the road, light and sign drawn, each item's
# kind, label and drawing (the item's shapes without its label), and what
# the road and its markings look like.
DRAW_JS = """
const faces = arguments[0], done = arguments[arguments.length - 1];
import("/games/crazy-pilot/scene.js").then((m) => {
  document.getElementById("cz-samples")?.remove();
  const box = document.createElement("div");
  box.id = "cz-samples";
  document.body.append(box);
  const figs = faces.map((f) => { const e = m.cardFigure(f, "mid"); box.append(e); return e; });
  done({kinds: m.ITEM_KINDS, figures: figs.map((fig) => ({
    label: fig.getAttribute("aria-label"), role: fig.getAttribute("role"), handle: fig.dataset.handle,
    caption: fig.querySelector("figcaption").textContent,
    elements: fig.querySelectorAll("figcaption *").length,
    road: fig.querySelector("svg .cz-road").dataset.road,
    roadDrawing: fig.querySelector("svg .cz-road").innerHTML,
    marking: fig.querySelector("svg .cz-marking")?.dataset.marking || "none",
    light: fig.querySelector("svg .cz-light")?.dataset.light || "none",
    lightText: fig.querySelector("svg .cz-light text")?.textContent || null,
    lit: [...fig.querySelectorAll("svg .cz-light circle")].map((c) => c.getAttribute("stroke") !== "#555"),
    sign: fig.querySelector("svg .cz-sign")?.dataset.sign || "none",
    signText: fig.querySelector("svg .cz-sign text:last-of-type")?.textContent || null,
    car: Number(fig.querySelector("svg .cz-car").dataset.lane),
    items: [...fig.querySelectorAll("svg .cz-item")].map((g) => ({
      kind: g.dataset.kind, lane: Number(g.dataset.lane), row: Number(g.dataset.row),
      label: g.querySelector("text.cz-label").textContent,
      drawing: g.firstElementChild.innerHTML,
      box: (({width, height}) => [width, height])(g.getBoundingClientRect())})),
  }))});
}).catch((e) => done({error: String(e)}));
"""


# ---- playing through REST ---------------------------------------------------

def seat_view(daemon, token, match, seat):
    return daemon.get(f"/v1/matches/{match}/seats/{seat}", token)


def public_view(daemon, match):
    return daemon.get(f"/v1/matches/{match}")["view"]


def send(daemon, token, match, kind, seat=None, **fields):
    body = {"kind": kind, **fields}
    if seat is not None:
        body["seat"] = seat
    return daemon.post(f"/v1/matches/{match}/inputs", body, token)


def wait_card(daemon, token, match, seat, after=None):
    """Seat's view once it has a face-up card (another than `after`) it may resolve."""
    def ready():
        v = seat_view(daemon, token, match, seat)
        you = v["you"]
        return v if you["may_resolve"] and you["card"] and you["card"]["handle"] != after else None
    return wait_for(ready, f"seat {seat} of match {match} to have a card to resolve" + (f" after {after}" if after else ""))


def wait_phase(daemon, match, phases):
    return wait_for(lambda: (lambda v: v if v["phase"] in phases else None)(public_view(daemon, match)),
                    f"match {match} to be in phase {phases}")


def card_or_end(daemon, token, match, seat, after=None):
    """Seat's view once it has a new card to resolve, or once the game is
    ending or over (its view then)."""
    def ready():
        v = seat_view(daemon, token, match, seat)
        you = v["you"]
        if v["phase"] in ("ending", "finished"):
            return v
        return v if you["may_resolve"] and you["card"] and you["card"]["handle"] != after else None
    return wait_for(ready, f"seat {seat} of match {match} to have a card after {after}, or the end")


def play_out(daemon, token, match, seat, placement="straight"):
    """Seat resolves every card of its pile until the game is over: the
    starting card comes up, the game ends (Z23)."""
    after = None
    for _ in range(40):
        v = card_or_end(daemon, token, match, seat, after)
        if v["phase"] in ("ending", "finished"):
            break
        after = v["you"]["card"]["handle"]
        send(daemon, token, match, "resolve", seat, placement=placement)
    return wait_phase(daemon, match, ("finished",))
