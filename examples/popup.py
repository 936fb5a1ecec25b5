#!/usr/bin/env python3
"""A popup that appears, takes one tap on its OK button, and goes away. Standard library only.
Usage: popup.py [--socket PATH] MOUNT-POINT   (a view with `mount: true` whose owner admits you)"""
import json, socket, sys

args = sys.argv[1:]
path = "/run/touchrouter/touchrouter.sock"
if args[:1] == ["--socket"]:
    path, args = args[1], args[2:]
mount_point = args[0] if args else "popup-layer"
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
            if reply["type"] == "error":
                sys.exit(f'{reply["code"]}: {reply["message"]}')
            return reply

# 1. The popup appears: mounted views are config views (ids must be new). Live once answered.
popup = {"id": "popup", "frame": [140, 660, 800, 600], "children": [
    {"id": "popup-ok", "frame": [250, 420, 300, 120], "shape": {"roundedRect": 24}, "touchMargin": 16}]}
print("mounted at generation", request({"type": "mount", "view": mount_point, "children": [popup]})["generation"])
# 2. It takes a touch: the popup swallows touches around its button (nobody else gets them).
request({"type": "subscribe", "views": ["popup"], "subtree": True})
for line in stream:
    message = json.loads(line)
    if message["type"] != "touches":
        continue
    ended = [t for t in message["touches"] if t["phase"] == "ended"]
    if message["view"] == "popup-ok" and ended:
        print("OK tapped at", ended[0]["location"])
        break
# 3. It goes away (closing the connection would remove it too).
print("unmounted at generation", request({"type": "unmount", "view": mount_point})["generation"])
