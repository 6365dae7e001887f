"""tests/web/crash_pilot.py — playing Crash Pilot through the referee's
REST inputs, as tests/integration/crash_pilot_view.c does through pads: a
call is picked from the public view (the first row the face-up card fits,
or one it does not fit), and every wait is for the view to open a window."""
from harness import wait_for

DOESNT_FIT = "doesn't fit"


def pick_call(view, want_wrong=False):
    """The call's name: the first legal row (or "doesn't fit"), or, with
    want_wrong, the first row the card does not fit (or "doesn't fit")."""
    face = view["face_up"]
    legal = wrong = None
    for i, row in enumerate(view["rows"]):
        fits = all(c["object"] != face["object"] and c["colour"] != face["colour"] for c in row)
        if fits and legal is None:
            legal = i + 1
        if not fits and wrong is None:
            wrong = i + 1
    n = wrong if want_wrong else legal
    return f"row {n}" if n else DOESNT_FIT


def public_view(daemon, match):
    return daemon.get(f"/v1/matches/{match}")["view"]


def wait_window(daemon, match, after):
    """The public view once a window other than `after` is open with a card up."""
    def ready():
        v = public_view(daemon, match)
        w = v.get("window")
        return v if w and w["id"] != after and v.get("face_up") else None
    return wait_for(ready, f"match {match} to open a window after {after}")


def call(daemon, referee, match, seat, name):
    return daemon.post(f"/v1/matches/{match}/inputs", {"kind": "call", "seat": seat, "call": name}, referee)
