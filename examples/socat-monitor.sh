#!/bin/sh
# Watch every touch touchrouterd routes to the views given (default: the view "main" and its subtree),
# as raw protocol lines, until Ctrl-C or the daemon closes. Needs only socat. Usage: socat-monitor.sh [SOCKET] [VIEW]
# -t: socat keeps reading after its input (the two requests) ended, with or without a terminal.
printf '{"type":"hello","version":1,"client":"socat"}\n{"type":"subscribe","views":["%s"],"subtree":true}\n' "${2:-main}" \
    | socat -t 1000000000 - "UNIX-CONNECT:${1:-/run/touchrouter/touchrouter.sock}"
