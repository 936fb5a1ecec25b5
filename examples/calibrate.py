#!/usr/bin/env python3
"""Calibrate a screen through touchrouterd's calibration session (docs/calibration.md): the path
for a program that draws its own targets (a kiosk page, a setup wizard). Standard library only.
Usage: calibrate.py [--socket PATH] [--points 3|4|5|9] [--verify] SCREEN
Prints each target as `target X Y (I of N)` in the screen's layout units (draw it there), each
accepted press as `pressed X Y`, each refused one as `refused REASON: MESSAGE` (ask again), then
the fit: `calibration: [a, b, c, d, e, f]` for the screen's config, the residuals and the
verification error. Exits 1 when the daemon refuses, ends the session or cannot fit."""
import json, socket, sys

args = sys.argv[1:]
path, count, verify = "/run/touchrouter/touchrouter.sock", 4, False
while args[:1] in (["--socket"], ["--points"], ["--verify"]):
    if args[0] == "--socket":
        path, args = args[1], args[2:]
    elif args[0] == "--points":
        count, args = int(args[1]), args[2:]
    else:
        verify, args = True, args[1:]
if len(args) != 1 or count not in (3, 4, 5, 9):
    sys.exit(__doc__)
screen = args[0]

sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
sock.connect(path)
stream = sock.makefile("rw", encoding="utf-8", newline="\n")
sent = 0
def send(message):
    global sent
    sent += 1
    stream.write(json.dumps({**message, "seq": sent}) + "\n")
    stream.flush()
def read():
    line = stream.readline()
    if not line:
        sys.exit("the daemon closed the connection")
    return json.loads(line)
def request(message):
    send(message)
    while True:  # the reply carries our seq; other messages may come first
        reply = read()
        if reply.get("seq") == sent:
            if reply["type"] == "error":
                sys.exit(f"error {reply['code']}: {reply['message']}")
            return reply

def number(x):  # six decimals, trailing zeros dropped, as touchrouterctl writes a matrix
    text = f"{x:.6f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text

# Targets 10 % in from the edges (touchrouterctl's placement): tenths of the width and height.
near, far = 1, 9
layouts = {3: [(near, near), (far, near), (5, far)], 4: [(near, near), (far, near), (near, far), (far, far)],
           5: [(near, near), (far, near), (5, 5), (near, far), (far, far)],
           9: [(x, y) for y in (near, 5, far) for x in (near, 5, far)]}

request({"type": "hello", "version": 1, "client": "calibrate.py"})
started = request({"type": "calibrationStart", "screen": screen})
width, height = started["width"], started["height"]
targets = [(width * x / 10, height * y / 10) for x, y in layouts[count]]
if verify:
    targets.append((width * 3 / 10, height * 6 / 10))  # held out: no target shares it
points = []
for index, (x, y) in enumerate(targets):
    print(f"target {number(x)} {number(y)} ({index + 1} of {len(targets)})", flush=True)
    while True:
        message = read()
        if message["type"] == "calibrationSample":
            print(f"pressed {number(message['point']['x'])} {number(message['point']['y'])}", flush=True)
            points.append({"target": {"x": x, "y": y}, "normalized": message["normalized"]})
            break
        if message["type"] == "calibrationRefused":
            print(f"refused {message['reason']}: {message['message']}", flush=True)
        elif message["type"] == "calibrationEnded":
            sys.exit(f"the daemon ended the session: {message['reason']}")
        elif message["type"] == "error":
            sys.exit(f"error {message['code']}: {message['message']}")

finish = {"type": "calibrationFinish", "points": points[:count]}
if verify:
    finish["verify"] = points[count]
result = request(finish)
print("calibration: [" + ", ".join(number(x) for x in result["matrix"]) + "]")
print("residuals: " + ", ".join(number(r) for r in result["residuals"]))
if result["verification"] is not None:
    millimetres = result["verification"]["millimetres"]
    print(f"verification: {number(result['verification']['units'])} units"
          + (f", {number(millimetres)} mm" if millimetres is not None else ""))
