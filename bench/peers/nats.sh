#!/usr/bin/env bash
# Three clustered nats-server processes with JetStream on loopback, for a three-replica file stream.
# Weaker durability: Debian's nats-server 2.9 cannot fsync every write (sync_interval arrived in
# 2.10); it syncs about once a minute, so an acknowledged message can be lost on power loss.
#
#   bash bench/peers/nats.sh start DIR CLIENT1 CLIENT2 CLIENT3 ROUTE1 ROUTE2 ROUTE3
#   bash bench/peers/nats.sh stop DIR
#
# `start` prints "ready" and the pids once every server accepts clients and their routes are up;
# the bench itself waits for a JetStream meta leader (stream creation retries until one exists).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

routes_up() {
  # Each server logs one "Route connection created" per peer it connected to.
  local i n
  for i in 1 2 3; do
    n=$(grep -c "Route connection created" "$dir/n$i/server.log" 2>/dev/null)
    [ "${n:-0}" -ge 2 ] || return 1
  done
}

start() {
  dir=$1
  local client=(x "$2" "$3" "$4") route=(x "$5" "$6" "$7")
  command -v nats-server >/dev/null || fail "nats-server is not installed (bash bench/peers/install.sh nats)"
  mkdir -p "$dir"
  local routes="nats-route://127.0.0.1:${route[1]}, nats-route://127.0.0.1:${route[2]}, nats-route://127.0.0.1:${route[3]}"
  local i
  for i in 1 2 3; do
    local nd="$dir/n$i"
    mkdir -p "$nd/jetstream"
    cat >"$nd/server.conf" <<CONF
server_name: n$i
host: 127.0.0.1
port: ${client[$i]}
jetstream {
  store_dir: "$nd/jetstream"
}
cluster {
  name: bench
  host: 127.0.0.1
  port: ${route[$i]}
  routes: [ $routes ]
}
CONF
    start_detached "$dir" "$nd/stdout.log" nats-server -c "$nd/server.conf" -l "$nd/server.log"
  done
  for i in 1 2 3; do
    wait_until 30 port_open "${client[$i]}" || fail "nats n$i did not open port ${client[$i]} (see $dir/n$i)"
  done
  wait_until 30 routes_up || fail "nats routes did not connect (see $dir/n*/server.log)"
  announce_ready "$dir"
}

peer_main 7 "DIR CLIENT1 CLIENT2 CLIENT3 ROUTE1 ROUTE2 ROUTE3" "$@"
