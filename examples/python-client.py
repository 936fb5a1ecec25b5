#!/usr/bin/env python3
"""Print the touches touchrouterd routes to some views, or with --gestures their gestures too
(the views' `gestures` in the config). Standard library only.
Usage: python-client.py [--socket PATH] [--gestures] [VIEW ...]
       (no views: everything, via each screen's root)"""
import json, socket, sys

args = sys.argv[1:]
path = "/run/touchrouter/touchrouter.sock"
if args[:1] == ["--socket"]:
    path, args = args[1], args[2:]
gestures = args[:1] == ["--gestures"]
if gestures:
    args = args[1:]
sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
sock.connect(path)
stream = sock.makefile("rw", encoding="utf-8", newline="\n")
def request(message):
    stream.write(json.dumps(message) + "\n")
    stream.flush()
    return json.loads(stream.readline())

request({"type": "hello", "version": 1, "client": "python-example"})
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
