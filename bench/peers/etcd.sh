#!/usr/bin/env bash
# Three etcd members on loopback (Debian's etcd-server), the reference for raw Raft commit
# throughput. etcd fsyncs its WAL before it acknowledges a write: durable like raftq.
#
#   bash bench/peers/etcd.sh start DIR CLIENT1 CLIENT2 CLIENT3 PEER1 PEER2 PEER3
#   bash bench/peers/etcd.sh stop DIR
#
# The bench talks to the members' HTTP/JSON gateway (/v3/kv/...). `start` prints "ready" and the
# pids once every member reports healthy.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

healthy() {
  local i
  for i in 1 2 3; do
    exec 3<>"/dev/tcp/127.0.0.1/${client[$i]}" || return 1
    printf 'GET /health HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' >&3
    grep -q '"health":"true"' <&3 || { exec 3>&-; return 1; }
    exec 3>&-
  done
}

start() {
  dir=$1
  client=(x "$2" "$3" "$4")
  local peer=(x "$5" "$6" "$7")
  command -v etcd >/dev/null || fail "etcd is not installed (bash bench/peers/install.sh etcd)"
  mkdir -p "$dir"
  local cluster="e1=http://127.0.0.1:${peer[1]},e2=http://127.0.0.1:${peer[2]},e3=http://127.0.0.1:${peer[3]}"
  local i
  for i in 1 2 3; do
    # Revisions of every put are kept until compacted: compact continuously and allow a large
    # backend so a long 64 KiB run does not hit the space quota.
    start_detached "$dir" "$dir/e$i.log" etcd --name "e$i" --data-dir "$dir/e$i" \
      --listen-client-urls "http://127.0.0.1:${client[$i]}" --advertise-client-urls "http://127.0.0.1:${client[$i]}" \
      --listen-peer-urls "http://127.0.0.1:${peer[$i]}" --initial-advertise-peer-urls "http://127.0.0.1:${peer[$i]}" \
      --initial-cluster "$cluster" --initial-cluster-state new --initial-cluster-token raftq-bench \
      --auto-compaction-mode revision --auto-compaction-retention 10000 \
      --quota-backend-bytes 8589934592 --log-level warn
  done
  wait_until 60 healthy || fail "etcd members did not become healthy (see $dir/e*.log)"
  announce_ready "$dir"
}

peer_main 7 "DIR CLIENT1 CLIENT2 CLIENT3 PEER1 PEER2 PEER3" "$@"
