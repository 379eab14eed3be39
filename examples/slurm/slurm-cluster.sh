#!/usr/bin/env bash
# Builds a real Slurm cluster on this machine for iofit's Slurm tests (and tears it down):
# slurmctld in the root namespace on a bridge address, and N compute nodes, each a network
# namespace with its own address in 10.232.X.0/24 running its own slurmd. Authentication is
# MUNGE with a key made for the set and a munged whose socket lives in DIR. Traffic stays
# between this machine and its own namespaces. Needs root, iproute2, slurm-wlm and munge
# (Debian's packages).
#
#   slurm-cluster.sh up N DIR     # DIR gets slurm.conf, env (SLURM_CONF=...), logs, nodes
#   slurm-cluster.sh down DIR     # stops every daemon of the set and removes the namespaces
#
# After `up`, `. DIR/env` sets SLURM_CONF, so `srun`, `salloc` and `sbatch` use the cluster.
# Nodes are named node1..nodeN; DIR/nodes lists them.
set -euo pipefail

die() { echo "slurm-cluster: $*" >&2; exit 1; }

need() { command -v "$1" >/dev/null || [ -x "$1" ] || die "needs $1 ($2)"; }

up() {
    local count=$1 dir=$2
    [ "$(id -u)" = 0 ] || die "needs root (network namespaces, munged, slurmd)"
    need ip iproute2
    need /usr/sbin/slurmctld "apt-get install slurm-wlm"
    need /usr/sbin/slurmd "apt-get install slurm-wlm"
    need /usr/sbin/munged "apt-get install munge"
    if [ ! -c /dev/null ]; then rm -f /dev/null && mknod -m 666 /dev/null c 1 3; fi
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    local set=""
    for x in $(seq 1 250); do
        if ip link add "iofit-sbr$x" type bridge 2>/dev/null; then set=$x; break; fi
    done
    [ -n "$set" ] || die "cannot create a bridge (network namespaces not permitted here, or 250 sets in use)"
    echo "$set" > "$dir/set"
    local ctl="10.232.$set.254"
    ip addr add "$ctl/24" dev "iofit-sbr$set"
    ip link set "iofit-sbr$set" up
    # Ports per set, so that sets built at once by parallel tests never share one.
    local ctld_port=$((20000 + set * 4)) slurmd_port=$((20001 + set * 4))
    mkdir -p "$dir/state" "$dir/spool" "$dir/log"
    chmod 755 "$dir"
    dd if=/dev/urandom of="$dir/munge.key" bs=1024 count=1 status=none
    chmod 400 "$dir/munge.key"
    /usr/sbin/munged --force --socket="$dir/munge.socket" --key-file="$dir/munge.key" \
        --pid-file="$dir/munged.pid" --log-file="$dir/log/munged.log" --seed-file="$dir/munged.seed"
    : > "$dir/nodes"
    local nodes=""
    for i in $(seq 1 "$count"); do
        nodes+="NodeName=node$i NodeAddr=10.232.$set.$i CPUs=$(nproc) RealMemory=1024 State=UNKNOWN"$'\n'
        echo "node$i" >> "$dir/nodes"
    done
    cat > "$dir/slurm.conf" <<CONF
ClusterName=iofit$set
SlurmctldHost=$(hostname -s)($ctl)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge.socket
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd-%n.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
SlurmdTimeout=10
SlurmctldTimeout=10
InactiveLimit=0
KillWait=2
MinJobAge=2
SchedulerType=sched/builtin
$nodes
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF
    # slurmd 22.05 sets up its cgroup plugin even with proctrack/linuxproc; v1 controllers are
    # what this kind of machine mounts (autodetect fails on a tmpfs /sys/fs/cgroup).
    if [ -d /sys/fs/cgroup/freezer ]; then
        printf 'CgroupPlugin=cgroup/v1\nCgroupMountpoint=/sys/fs/cgroup\n' > "$dir/cgroup.conf"
    else
        printf 'CgroupPlugin=autodetect\n' > "$dir/cgroup.conf"
    fi
    echo "export SLURM_CONF=$dir/slurm.conf" > "$dir/env"
    SLURM_CONF="$dir/slurm.conf" /usr/sbin/slurmctld -f "$dir/slurm.conf" -i
    for i in $(seq 1 "$count"); do
        local ns="iofit-s$set-$i" veth="iofit-s$set-$i"
        ip netns add "$ns"
        ip link add "$veth" type veth peer name "$veth-p"
        ip link set "$veth-p" netns "$ns"
        ip link set "$veth" master "iofit-sbr$set" up
        ip -n "$ns" link set lo up
        ip -n "$ns" link set "$veth-p" name eth0
        ip -n "$ns" addr add "10.232.$set.$i/24" dev eth0
        ip -n "$ns" link set eth0 up
        mkdir -p "$dir/spool/node$i" "$dir/data/node$i"
        ip netns exec "$ns" env SLURM_CONF="$dir/slurm.conf" /usr/sbin/slurmd -f "$dir/slurm.conf" -N "node$i"
    done
    # Wait until every node is idle.
    for _ in $(seq 1 150); do
        local idle
        idle=$(SLURM_CONF="$dir/slurm.conf" sinfo -h -N -o '%N %t' 2>/dev/null | grep -c ' idle$' || true)
        [ "$idle" = "$count" ] && return 0
        sleep 0.2
    done
    SLURM_CONF="$dir/slurm.conf" sinfo -N >&2 || true
    die "the nodes did not become idle in 30 s; see $dir/log"
}

down() {
    local dir=$1
    [ -f "$dir/set" ] || return 0
    local set
    set=$(cat "$dir/set")
    for ns in $(ip netns list | awk '{print $1}' | grep "^iofit-s$set-[0-9]*$" || true); do
        for pid in $(ip netns pids "$ns"); do kill -9 "$pid" 2>/dev/null || true; done
        ip netns del "$ns" 2>/dev/null || true
    done
    for pidfile in "$dir/slurmctld.pid" "$dir/munged.pid"; do
        [ -f "$pidfile" ] && kill -9 "$(cat "$pidfile")" 2>/dev/null || true
    done
    for link in $(ip -o link show | awk -F': ' '{print $2}' | cut -d@ -f1 | grep "^iofit-s$set-" || true); do
        ip link del "$link" 2>/dev/null || true
    done
    ip link del "iofit-sbr$set" 2>/dev/null || true
    rm -f "$dir/set"
}

case "${1:-}" in
    up) [ $# = 3 ] || die "usage: $0 up N DIR"; up "$2" "$3" ;;
    down) [ $# = 2 ] || die "usage: $0 down DIR"; down "$2" ;;
    *) die "usage: $0 up N DIR | down DIR" ;;
esac
