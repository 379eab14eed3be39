#!/usr/bin/env bash
# Builds N real ssh hosts on this machine for multi-host iofit runs (and tears them down):
# each host is a network namespace with its own address in 10.231.X.0/24 (a veth pair to a
# bridge that exists only for this set), running OpenSSH's sshd with a host key and an
# authorized user key made for the set. Traffic stays between this machine and its own
# namespaces. Needs root, iproute2 and openssh-server (sshd).
#
#   netns-hosts.sh up N DIR     # creates the hosts; DIR gets ssh_config, keys, logs, hosts
#   netns-hosts.sh down DIR     # stops every process in the namespaces and removes them
#
# After `up`, `DIR/hosts` lists the addresses (one a line, usable as `iofit run --hosts FILE`)
# and `ssh -F DIR/ssh_config ADDRESS` logs in as root. Each host has its own target directory
# DIR/data/ADDRESS.
set -euo pipefail

die() { echo "netns-hosts: $*" >&2; exit 1; }

up() {
    local count=$1 dir=$2
    [ "$(id -u)" = 0 ] || die "needs root (network namespaces and sshd)"
    command -v ip >/dev/null || die "needs iproute2 (ip)"
    local sshd=/usr/sbin/sshd
    [ -x "$sshd" ] || die "needs openssh-server ($sshd); apt-get install openssh-server"
    mkdir -p "$dir" /run/sshd
    # sshd refuses to start ("daemon() failed: No such device") when /dev/null is not the null
    # device; on a shared root machine something can replace it with a plain file. Put it back.
    if [ ! -c /dev/null ]; then
        echo "netns-hosts: /dev/null was not a character device; recreating it" >&2
        rm -f /dev/null && mknod -m 666 /dev/null c 1 3
    fi
    dir=$(cd "$dir" && pwd)
    # Claim a free set number: creating the bridge is atomic, so parallel sets never collide.
    local set=""
    for x in $(seq 1 250); do
        if ip link add "iofit-br$x" type bridge 2>/dev/null; then set=$x; break; fi
    done
    [ -n "$set" ] || die "cannot create a bridge (network namespaces not permitted here, or 250 sets in use)"
    echo "$set" > "$dir/set"
    ip addr add "10.231.$set.254/24" dev "iofit-br$set"
    ip link set "iofit-br$set" up
    ssh-keygen -q -t ed25519 -N "" -f "$dir/host_key" -C "iofit-netns-host"
    ssh-keygen -q -t ed25519 -N "" -f "$dir/id_ed25519" -C "iofit-netns-user"
    cp "$dir/id_ed25519.pub" "$dir/authorized_keys"
    chmod 600 "$dir/authorized_keys"
    : > "$dir/hosts"
    mkdir -p "$dir/data"
    cat > "$dir/ssh_config" <<CONF
Host 10.231.$set.*
    User root
    IdentityFile $dir/id_ed25519
    IdentitiesOnly yes
    UserKnownHostsFile $dir/known_hosts
    StrictHostKeyChecking accept-new
    LogLevel ERROR
CONF
    for i in $(seq 1 "$count"); do
        local ns="iofit-$set-$i" address="10.231.$set.$i" veth="iofit-$set-$i"
        ip netns add "$ns"
        ip link add "$veth" type veth peer name "$veth-p"
        ip link set "$veth-p" netns "$ns"
        ip link set "$veth" master "iofit-br$set" up
        ip -n "$ns" link set lo up
        ip -n "$ns" link set "$veth-p" name eth0
        ip -n "$ns" addr add "$address/24" dev eth0
        ip -n "$ns" link set eth0 up
        cat > "$dir/sshd_config-$i" <<CONF
ListenAddress $address
Port 22
HostKey $dir/host_key
AuthorizedKeysFile $dir/authorized_keys
PidFile $dir/sshd-$i.pid
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PrintMotd no
CONF
        ip netns exec "$ns" "$sshd" -f "$dir/sshd_config-$i" -E "$dir/sshd-$i.log"
        mkdir -p "$dir/data/$address"
        echo "$address" >> "$dir/hosts"
    done
    # Wait until every sshd answers.
    for address in $(cat "$dir/hosts"); do
        for _ in $(seq 1 50); do
            if ssh -F "$dir/ssh_config" -o BatchMode=yes -o ConnectTimeout=2 "$address" true 2>/dev/null; then
                continue 2
            fi
            sleep 0.1
        done
        die "sshd on $address does not answer; see $dir/sshd-*.log"
    done
}

down() {
    local dir=$1
    [ -f "$dir/set" ] || return 0
    local set
    set=$(cat "$dir/set")
    for ns in $(ip netns list | awk '{print $1}' | grep "^iofit-$set-[0-9]*$" || true); do
        # Every process in the namespace is ours: sshd and the workers it started.
        for pid in $(ip netns pids "$ns"); do kill -9 "$pid" 2>/dev/null || true; done
        ip netns del "$ns" 2>/dev/null || true
    done
    for link in $(ip -o link show | awk -F': ' '{print $2}' | cut -d@ -f1 | grep "^iofit-$set-" || true); do
        ip link del "$link" 2>/dev/null || true
    done
    ip link del "iofit-br$set" 2>/dev/null || true
    rm -f "$dir/set"
}

case "${1:-}" in
    up) [ $# = 3 ] || die "usage: $0 up N DIR"; up "$2" "$3" ;;
    down) [ $# = 2 ] || die "usage: $0 down DIR"; down "$2" ;;
    *) die "usage: $0 up N DIR | down DIR" ;;
esac
