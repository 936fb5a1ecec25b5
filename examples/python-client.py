#!/usr/bin/env python3
"""Print the touches touchrouterd routes to some views, or with --gestures their gestures too
(the views' `gestures` in the config). Standard library only.
Usage: python-client.py [--socket PATH] [--gestures] [--set VIEW FIELD=JSON]... [--mount VIEW FILE.json]
       [VIEW ...]
(no views: everything, via each screen's root). --set and --mount change the layout first (the
view's config must give this client's user an `owner`); a mount lasts while this client runs."""
import json, socket, sys

args = sys.argv[1:]
path = "/run/touchrouter/touchrouter.sock"
changes, mounts, gestures = {}, [], False
while args[:1] in (["--socket"], ["--gestures"], ["--set"], ["--mount"]):
    if args[0] == "--socket":
        path, args = args[1], args[2:]
    elif args[0] == "--gestures":
        gestures, args = True, args[1:]
    elif args[0] == "--set":
        field, _, value = args[2].partition("=")
        changes.setdefault(args[1], {})[field] = json.loads(value)
        args = args[3:]
    else:
        mounts.append((args[1], json.load(open(args[2]))))
        args = args[3:]
sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
sock.connect(path)
stream = sock.makefile("rw", encoding="utf-8", newline="\n")
sent = 0
def request(message):
    global sent
    sent += 1
    stream.write(json.dumps({**message, "seq": sent}) + "\n")
    stream.flush()
    while True:  # the reply carries our seq; touches, layoutChanged and the like may come first
        reply = json.loads(stream.readline())
        if reply.get("seq") == sent:
            return reply

def set_view(views):           # {"ok": {"hidden": True}, "list": {"frame": [0, -240, 1080, 2400]}}
    return request({"type": "setView", "views": views})
def mount(view, children):     # children: a list of views in the config's syntax
    return request({"type": "mount", "view": view, "children": children})
def unmount(view):
    return request({"type": "unmount", "view": view})

request({"type": "hello", "version": 1, "client": "python-example"})
for reply in ([set_view(changes)] if changes else []) + [mount(view, children) for view, children in mounts]:
    print(reply["type"], reply.get("generation", ""), reply.get("code", ""), reply.get("message", ""), flush=True)
    for failure in reply.get("failures", []):
        print("  ", failure["code"], failure.get("view", ""), failure.get("field", ""), failure["message"], flush=True)
views = args or [s["root"]["id"] for s in request({"type": "layout"})["screens"]]
subscribe = {"type": "subscribe", "views": views, "subtree": not args}
if gestures:
    subscribe["gestures"] = True
reply = request(subscribe)
print("subscribed:", reply.get("views", reply), flush=True)
for line in stream:
    message = json.loads(line)
    if message["type"] == "gesture":
        x, y = message["location"]
        extra = {k: message[k] for k in ("taps", "direction", "translation", "scale", "rotation") if k in message}
        print(f'{message["view"]} {message["gesture"]} {message["state"]} at ({x:g}, {y:g}) {extra or ""}'.rstrip(),
              flush=True)
        continue
    if message["type"] != "touches":
        print(message["type"], message.get("code", ""), message.get("message", ""), flush=True)
        continue
    for touch in message["touches"]:
        x, y = touch["location"]
        print(f'{message["view"]} touch {touch["id"]} {touch["phase"]} at ({x:g}, {y:g})', flush=True)
