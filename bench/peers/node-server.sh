#!/usr/bin/env bash
# Starts one of the bench's Node.js servers (local-aws-sqs, the no-op HTTP server) on loopback.
#
#   bash bench/peers/node-server.sh start DIR local-aws-sqs|noop-http PORT
#   bash bench/peers/node-server.sh stop DIR
#
# Needs `npm run build` (the servers run from dist/bench/peers/). Prints "ready" and the pid.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
root=$(cd "$here/../.." && pwd)

start() {
  local dir=$1 name=$2 port=$3
  local entry="$root/dist/bench/peers/$name-server.js"
  [ -f "$entry" ] || fail "$entry is missing: run npm run build"
  [ "$name" != local-aws-sqs ] || [ -d "$root/node_modules/local-aws-sqs" ] || fail "local-aws-sqs is not installed (npm install)"
  mkdir -p "$dir"
  start_detached "$dir" "$dir/$name.log" node "$entry" "$port"
  wait_until 30 port_open "$port" || fail "$name did not listen on $port (see $dir/$name.log)"
  announce_ready "$dir"
}

peer_main 3 "DIR local-aws-sqs|noop-http PORT" "$@"
