#!/bin/sh
# Watch every touch touchrouterd routes to the views given (default: the view "main" and its subtree),
# as raw protocol lines. Needs only socat. Usage: socat-monitor.sh [SOCKET] [VIEW]
# The `cat` keeps socat's input open, so the daemon keeps the connection after the requests.
{ printf '{"type":"hello","version":1,"client":"socat"}\n{"type":"subscribe","views":["%s"],"subtree":true}\n' "${2:-main}"; cat; } | socat - "UNIX-CONNECT:${1:-/run/touchrouter/touchrouter.sock}"
