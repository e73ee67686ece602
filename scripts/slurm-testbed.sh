#!/bin/bash
# A single-node Slurm on this host for tests and benchmarks: munged, slurmctld and slurmd,
# all as root, with every file under one temporary folder. Nothing under /etc is touched.
#   slurm-testbed.sh start DIR   prints the environment to use (SLURM_CONF=...)
#   slurm-testbed.sh stop DIR
set -euo pipefail

die() { echo "slurm-testbed: $*" >&2; exit 1; }

free_port() {
    python3 - <<'PY' 2>/dev/null || echo $((20000 + RANDOM % 20000))
import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()
PY
}

wait_for() { # seconds, command...
    local seconds=$1; shift
    for _ in $(seq $((seconds * 10))); do
        "$@" >/dev/null 2>&1 && return 0
        sleep 0.1
    done
    return 1
}

start() {
    local dir=$1
    [ "$(id -u)" = 0 ] || die "needs root (the daemons run as root)"
    for tool in munged slurmctld slurmd sinfo; do
        command -v "$tool" >/dev/null || die "$tool is missing (scripts/install-deps.sh installs slurm-wlm and munge)"
    done
    mkdir -p "$dir"/{munge,state,spool,log}
    chmod 700 "$dir/munge"
    dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
    chmod 400 "$dir/munge/munge.key"
    munged --force --socket="$dir/munge/socket" --key-file="$dir/munge/munge.key" \
        --pid-file="$dir/munge/munged.pid" --log-file="$dir/log/munged.log" \
        --seed-file="$dir/munge/seed"
    local host cpus memory
    host=$(hostname -s)
    cpus=$(nproc)
    memory=$(awk '/MemTotal/ { print int($2 / 1024 * 0.8) }' /proc/meminfo)
    cat > "$dir/slurm.conf" <<CONF
ClusterName=kilntest
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/socket
CredType=cred/munge
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
KillWait=2
MinJobAge=300
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$memory State=UNKNOWN
PartitionName=kiln Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
    export SLURM_CONF="$dir/slurm.conf"
    slurmctld -i
    wait_for 20 scontrol ping || die "slurmctld did not answer; see $dir/log/slurmctld.log"
    slurmd
    wait_for 30 sh -c "sinfo -h -o %T | grep -qE '^(idle|mixed|allocated)'" ||
        die "the node did not come up; see $dir/log/slurmd.log"
    echo "SLURM_CONF=$dir/slurm.conf"
}

stop() {
    local dir=$1
    for pidfile in "$dir/slurmd.pid" "$dir/slurmctld.pid" "$dir/munge/munged.pid"; do
        [ -f "$pidfile" ] || continue
        local pid
        pid=$(cat "$pidfile")
        kill "$pid" 2>/dev/null || true
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null || true
    done
}

case "${1:-}" in
start) start "${2:?DIR}" ;;
stop) stop "${2:?DIR}" ;;
*) die "usage: $0 start|stop DIR" ;;
esac
