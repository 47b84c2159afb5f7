#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mmb end-to-end, reloads: a long TCP session through source NAT with
# shuffled ports and a reflexive ACL keeps flowing, byte for byte, across
# "mmbctl save > f; mmbctl -f f" and then the systemd unit's reload (its
# ExecReload command, on the same file), IPv4 and IPv6: the same
# connection, the same NAT port, listed with the new rules' handles. A
# connection the reload ended would be taken up again mid-stream from
# another shuffled port, and the server would reset it. Topology in
# lib.sh. Prints TAP.
set -u

. "$(dirname "$0")/lib.sh"
e2e_begin
in_r mmbctl enable r0
in_r mmbctl enable r1
NAT4=198.51.100.1
NAT6=2001:db8:9::1

# The unit's reload, with its rules file replaced by $1.
unit_reload() {
	local cmd

	cmd=$(sed -n 's|^ExecReload=@SBINDIR@/||p' "$MMB_ROOT/userspace/systemd/mmb.service.in")
	# shellcheck disable=SC2086	# the command's words
	set -- ${cmd//\/etc\/mmb\/mmb.rules/$1}
	[ "$1" = mmbctl ] && in_r "$@"
}

# A TCP session to a tcp-echo-server that echoes 4 KB at a time, each
# checked, until file $3 exists; prints each round's number, then "done N",
# or what went wrong (and exits 1).
cat > "$TMP/stream.py" << 'EOF'
import os, socket, sys, time

host, port, stop = sys.argv[1], int(sys.argv[2]), sys.argv[3]
fam = socket.AF_INET6 if ":" in host else socket.AF_INET
rounds = 0
try:
    with socket.create_connection((host, port), timeout=60) as s:
        while not os.path.exists(stop):
            data = os.urandom(4096)
            s.sendall(data)
            got = b""
            while len(got) < len(data):
                chunk = s.recv(len(data) - len(got))
                if not chunk:
                    raise ConnectionError("closed by the peer")
                got += chunk
            if got != data:
                raise ValueError("the echo differs")
            rounds += 1
            print(rounds, flush=True)
            time.sleep(0.005)
except Exception as e:
    print(f"error after {rounds} rounds: {e!r}", flush=True)
    sys.exit(1)
print(f"done {rounds}", flush=True)
EOF

# Rounds the session has echoed so far.
rounds() {
	grep -xE '[0-9]+' "$TMP/stream.log" | tail -n 1 | grep . || echo 0
}

rounds_reached() {
	test "$(rounds)" -ge "$1"
}

# The session's connection to $1 port 7000, as show connections has it (JSON).
session() {
	in_r mmbctl -j show connections |
		jq -c --arg d "$1" '[.[] | select(.proto == "tcp" and .orig.dst == $d and
					    .orig.dport == 7000)]'
}

# The handles of the rules now, as a sorted JSON array.
handles() {
	in_r mmbctl -j list | jq -c '[.[].handle] | sort'
}

in_r mmbctl add-stateful ip-saddr 10.0.1.0/24 ip-proto tcp shuffle tcp-sport \
	mod ip-saddr "$NAT4"
in_r mmbctl add-stateful ip6-saddr fd00:1::/64 ip6-next tcp shuffle tcp-sport \
	mod ip6-saddr "$NAT6"
in_r mmbctl add-stateful ip-saddr 10.0.1.0/24 accept
in_r mmbctl add-stateful ip6-saddr fd00:1::/64 accept
in_r mmbctl add icmp6-type '>=' 133 icmp6-type '<=' 137 accept
in_r mmbctl add all drop
start_server "$S" python3 "$TRAFFIC" tcp-echo-server 7000

for dst in 10.0.2.2 fd00:2::2; do
	nat=$NAT4
	[ "$dst" = 10.0.2.2 ] || nat=$NAT6
	rm -f "$TMP/stop"
	bg_in "$C" python3 "$TMP/stream.py" "$dst" 7000 "$TMP/stop" > "$TMP/stream.log" 2>&1
	stream=$BG_PID
	check "($dst) a TCP session through source NAT echoes" \
		wait_for "$CEILING" rounds_reached 20
	first=$(session "$dst")
	check_jq "($dst) one connection, from the NAT address" \
		'.[0] | length == 1 and .[0].reply.dst == "'"$nat"'"' "$first"
	port=$(jq '.[0].reply.dport' <<< "$first")

	for how in save unit; do
		old=$(handles)
		if [ "$how" = save ]; then
			in_r mmbctl save > "$TMP/mmb.rules"
			check "($dst) the saved file flushes, enables and adds the rules" \
				test "$(grep -v '^#' "$TMP/mmb.rules" | head -n 1)" = flush -a \
				"$(grep -c '^enable ' "$TMP/mmb.rules")" -eq 2 -a \
				"$(grep -c '^add' "$TMP/mmb.rules")" -eq 6
			check "($dst) mmbctl -f of it" in_r mmbctl -f "$TMP/mmb.rules"
		else
			check "($dst) the unit's reload (ExecReload) of the same file" \
				unit_reload "$TMP/mmb.rules"
		fi
		n=$(rounds)
		new=$(handles)
		check "($dst, $how) the rules were added again, under new handles" \
			test "$(jq 'length' <<< "$new")" -eq 6 -a "$new" != "$old"
		check "($dst, $how) bytes still flow after the reload" \
			wait_for "$CEILING" rounds_reached $((n + 20))
		now=$(session "$dst")
		check_jq "($dst, $how) the same connection, the same NAT port" \
			'.[0] | length == 1 and .[0].reply.dport == '"$port"' and
			 .[0].reply.dst == "'"$nat"'"' "$now"
		check_jq "($dst, $how) it lists rules of the new handles" \
			'(.[0] - .[1] | length) == 0 and (.[0] | length) == 2' \
			"$(jq -c '.[0].rules' <<< "$now")
$new"
	done

	touch "$TMP/stop"
	status=0
	wait "$stream" || status=$?
	check "($dst) the session ends as it began, every echo intact" \
		sh -c "[ $status -eq 0 ] && grep -q '^done' '$TMP/stream.log' ||
			{ tail -n 3 '$TMP/stream.log'; false; }"
done
stop_server

in_r mmbctl -j show settings > "$TMP/settings"
check_jq "no connection ended by the reloads" '.[0].stats.ended == 0' "$(cat "$TMP/settings")"
check "kernel log has no warnings" kernel_log_clean
tap_end
