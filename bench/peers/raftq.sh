#!/usr/bin/env bash
# raftq itself, one node or a cluster on loopback, started with its own CLI (docs/OPERATIONS.md), each
# node with its data directory under DIR. Raft log writes are synced (fsync on, the default).
#
#   bash bench/peers/raftq.sh start DIR SQS1 ADMIN1 RAFT1 [SQS2 ADMIN2 RAFT2 ...]
#   bash bench/peers/raftq.sh stop DIR
#
# Needs `npm run build`. `start` prints "ready" and the pids once every node answers /ready.
# RAFTQ_BENCH_NODE_ARGS adds flags to each node's `node` (e.g. "--cpu-prof --cpu-prof-dir=DIR" to
# profile the nodes under load; the profile is written when `stop` ends them with SIGTERM).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
root=$(cd "$here/../.." && pwd)

ready() {
  local admin=$1
  exec 3<>"/dev/tcp/127.0.0.1/$admin" || return 1
  printf 'GET /ready HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' >&3
  head -n1 <&3 | grep -q ' 200 ' || { exec 3>&-; return 1; }
  exec 3>&-
}

start() {
  local dir=$1
  shift
  [ $(($# % 3)) -eq 0 ] && [ $# -gt 0 ] || fail "usage: start DIR SQS1 ADMIN1 RAFT1 [SQS2 ADMIN2 RAFT2 ...]"
  local entry="$root/dist/src/cli/main.js"
  [ -f "$entry" ] || fail "$entry is missing: run npm run build"
  local ports=("$@") count=$(($# / 3)) i peers=""
  for ((i = 0; i < count; i++)); do
    peers+="${peers:+,}n$((i + 1))=127.0.0.1:${ports[$((3 * i + 2))]}"
  done
  mkdir -p "$dir"
  for ((i = 0; i < count; i++)); do
    local id="n$((i + 1))"
    local args=(serve --id "$id" --data-dir "$dir/$id"
      --sqs-listen "127.0.0.1:${ports[$((3 * i))]}" --admin-listen "127.0.0.1:${ports[$((3 * i + 1))]}"
      --raft-listen "127.0.0.1:${ports[$((3 * i + 2))]}" --log-level warn)
    [ "$count" -gt 1 ] && args+=(--peers "$peers")
    mkdir -p "$dir/$id"
    # The node flag before the entry is what every launcher passes (src/cli/serve-node-flags.ts);
    # RAFTQ_BENCH_NODE_ARGS comes after it, so it can override it for an A/B.
    # shellcheck disable=SC2086 # the extra node flags are meant to split into words
    start_detached "$dir" "$dir/$id.log" node --max-semi-space-size=64 ${RAFTQ_BENCH_NODE_ARGS:-} "$entry" "${args[@]}"
  done
  for ((i = 0; i < count; i++)); do
    wait_until 60 ready "${ports[$((3 * i + 1))]}" || fail "raftq n$((i + 1)) did not become ready (see $dir/n$((i + 1)).log)"
  done
  announce_ready "$dir"
}

peer_main '*' "DIR SQS1 ADMIN1 RAFT1 [SQS2 ADMIN2 RAFT2 ...]" "$@"
