#!/usr/bin/env bash
# A three-node RabbitMQ cluster on loopback, for quorum queues (each queue replicated on all three
# nodes; the Raft WAL fsyncs before a publisher confirm, so it is a durable peer).
#
#   bash bench/peers/rabbitmq.sh start DIR EPMD_PORT AMQP1 AMQP2 AMQP3 DIST1 DIST2 DIST3
#   bash bench/peers/rabbitmq.sh stop DIR
#
# Every listener (AMQP, Erlang distribution, our own epmd) binds 127.0.0.1; data, logs and the
# Erlang cookie live under DIR. `start` prints "ready" and the pids, one per line, once the three
# nodes have formed one cluster.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

bin=/usr/lib/rabbitmq/bin

node_env() {
  local dir=$1 i=$2 amqp=$3 dist=$4
  local nd="$dir/n$i"
  echo HOME="$dir" \
    ERL_EPMD_ADDRESS=127.0.0.1 ERL_EPMD_PORT="$epmd_port" \
    RABBITMQ_NODENAME="rabbit$i@localhost" \
    RABBITMQ_NODE_IP_ADDRESS=127.0.0.1 RABBITMQ_NODE_PORT="$amqp" RABBITMQ_DIST_PORT="$dist" \
    RABBITMQ_CONF_ENV_FILE="$dir/rabbitmq-env.conf" \
    RABBITMQ_CONFIG_FILE="$nd/rabbitmq.conf" RABBITMQ_ADVANCED_CONFIG_FILE="$nd/advanced.config" \
    RABBITMQ_MNESIA_BASE="$nd/mnesia" RABBITMQ_LOG_BASE="$nd/log" \
    RABBITMQ_ENABLED_PLUGINS_FILE="$nd/enabled_plugins" RABBITMQ_PID_FILE="$nd/pid"
}

erl_loopback='-kernel inet_dist_use_interface {127,0,0,1}'

ctl() {
  local i=$1
  shift
  env $(node_env "$dir" "$i" "${amqp[$i]}" "${dist[$i]}") \
    RABBITMQ_CTL_ERL_ARGS="$erl_loopback" "$bin/rabbitmqctl" -n "rabbit$i@localhost" "$@"
}

start() {
  dir=$1 epmd_port=$2
  amqp=(x "$3" "$4" "$5")
  dist=(x "$6" "$7" "$8")
  [ -x "$bin/rabbitmq-server" ] || fail "rabbitmq-server is not installed (bash bench/peers/install.sh rabbitmq)"
  mkdir -p "$dir"
  : >"$dir/rabbitmq-env.conf"
  [ -f "$dir/.erlang.cookie" ] || { head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$dir/.erlang.cookie"; chmod 400 "$dir/.erlang.cookie"; }

  # Our own epmd, loopback only, on its own port: the nodes register with it, not with a system one.
  start_detached "$dir" "$dir/epmd.log" env ERL_EPMD_ADDRESS=127.0.0.1 epmd -address 127.0.0.1 -port "$epmd_port"
  wait_until 10 port_open "$epmd_port" || fail "epmd did not listen on $epmd_port"

  local i
  for i in 1 2 3; do
    local nd="$dir/n$i"
    mkdir -p "$nd/mnesia" "$nd/log"
    echo '[].' >"$nd/enabled_plugins"
    cat >"$nd/rabbitmq.conf" <<CONF
listeners.tcp.1 = 127.0.0.1:${amqp[$i]}
loopback_users = none
log.console = false
log.file.level = warning
CONF
    start_detached "$dir" "$nd/stdout.log" env $(node_env "$dir" "$i" "${amqp[$i]}" "${dist[$i]}") \
      RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS="$erl_loopback" "$bin/rabbitmq-server"
  done
  for i in 1 2 3; do
    wait_until 120 port_open "${amqp[$i]}" || fail "rabbit$i did not open AMQP port ${amqp[$i]} (see $dir/n$i)"
    ctl "$i" await_startup >/dev/null 2>&1 || fail "rabbit$i did not finish booting"
  done
  for i in 2 3; do
    ctl "$i" stop_app >/dev/null && ctl "$i" join_cluster rabbit1@localhost >/dev/null && ctl "$i" start_app >/dev/null ||
      fail "rabbit$i could not join rabbit1"
  done
  local members
  members=$(ctl 1 cluster_status --formatter json 2>/dev/null | grep -o '"running_nodes":\[[^]]*\]')
  for i in 1 2 3; do
    echo "$members" | grep -q "rabbit$i@localhost" || fail "rabbit$i is not a running cluster member: $members"
  done
  announce_ready "$dir"
}

peer_main 8 "DIR EPMD_PORT AMQP1 AMQP2 AMQP3 DIST1 DIST2 DIST3" "$@"
