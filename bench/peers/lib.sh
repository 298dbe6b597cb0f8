# Shared by the peer scripts: pid bookkeeping and readiness waits. Each peer records the pids it
# starts in DIR/pids, so `stop` ends exactly those processes (and their process groups) and
# nothing else on the machine.

pids_file() { echo "$1/pids"; }

record_pid() { echo "$2" >>"$(pids_file "$1")"; }

# Starts a command in its own session (so its children share a process group we can end as one),
# logs to FILE, records the pid.
start_detached() {
  local dir=$1 log=$2
  shift 2
  setsid "$@" >"$log" 2>&1 </dev/null &
  record_pid "$dir" $!
}

# Polls until `cmd...` succeeds or SECONDS pass. Returns 1 on timeout.
wait_until() {
  local seconds=$1
  shift
  local deadline=$((SECONDS + seconds))
  until "$@" >/dev/null 2>&1; do
    [ $SECONDS -ge $deadline ] && return 1
    sleep 0.2
  done
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# Ends every recorded process group: TERM, up to 20 s for a clean exit, then KILL.
stop_recorded() {
  local dir=$1 file pid
  file=$(pids_file "$dir")
  [ -f "$file" ] || return 0
  for pid in $(tac "$file"); do kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true; done
  local deadline=$((SECONDS + 20))
  for pid in $(cat "$file"); do
    while kill -0 "$pid" 2>/dev/null || pgrep -g "$pid" >/dev/null 2>&1; do
      if [ $SECONDS -ge $deadline ]; then kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true; break; fi
      sleep 0.2
    done
  done
  rm -f "$file"
}

# The root pids of every running process the peer started, one per line (the bench sums the CPU
# of each one's process tree).
print_pids() { local file; file=$(pids_file "$1"); [ -f "$file" ] && cat "$file"; return 0; }

fail() { echo "failed: $*" >&2; exit 1; }

# The end of a successful `start`: the line the bench waits for, then the pids it will watch.
announce_ready() {
  echo ready
  print_pids "$1"
}

# The command line every peer script takes, `start DIR ARGS...` or `stop DIR`. ARGC is how many
# arguments `start` takes, DIR included, or '*' for a script whose `start` checks them itself;
# USAGE names them for the refusal.
peer_main() {
  local argc=$1 usage=$2
  shift 2
  case "${1:-}" in
    start) shift; [ "$argc" = '*' ] || [ $# -eq "$argc" ] || fail "usage: start $usage"; start "$@" ;;
    stop) shift; stop_recorded "$1" ;;
    *) fail "usage: $0 start|stop DIR ..." ;;
  esac
}
