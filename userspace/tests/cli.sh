#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mmbctl's command line, without a kernel: usage, exit codes, and errors
# that point at the offending word. Prints TAP.
#
# usage: tests/cli.sh PATH_TO_MMBCTL
set -u
MMBCTL=$1
n=0
failed=0

# t DESC WANT_STATUS WANT_STDERR_LINES -- ARGS...: compare exit status and,
# if given, the exact error output.
t() {
	local desc=$1 want=$2 expect=$3 out status
	shift 4
	out=$("$MMBCTL" "$@" 2>&1 >/dev/null)
	status=$?
	n=$((n + 1))
	if [ "$status" -eq "$want" ] && { [ -z "$expect" ] || [ "$out" = "$expect" ]; }; then
		echo "ok $n - cli: $desc"
	else
		failed=$((failed + 1))
		echo "not ok $n - cli: $desc (exit $status, wanted $want)"
		printf '%s\n' "$out" | sed 's/^/#   /'
	fi
}

t "no command is a usage error" 2 "" --
t "help succeeds" 0 "" -- help
t "-h succeeds" 0 "" -- -h
t "-V succeeds" 0 "" -- -V
t "unknown option is a usage error" 2 "" -- --frob
t "unknown command points at it" 2 'Error: unknown command "frob", try "mmbctl help"
mmbctl frob x
       ^~~~' -- frob x
t "enable without IFACE points past the end" 2 'Error: missing IFACE
mmbctl enable
              ^' -- enable
t "enable with a name too long points at it" 2 'Error: not a valid interface name or pattern: an interface name is at most 15 bytes
mmbctl enable abcdefghijklmnopq
              ^~~~~~~~~~~~~~~~~' -- enable abcdefghijklmnopq
t "enable with a '*' before the end points at it" 2 "Error: not a valid interface name or pattern: a '*' may only end a pattern (\"ppp*\")
mmbctl enable p*p
              ^~~" -- enable 'p*p'
t "disable with an empty name points at it" 2 'Error: not a valid interface name or pattern: an interface name is not empty
mmbctl disable 
               ^' -- disable ''
t "a rule names one interface, not a pattern" 2 "Error: a rule names one interface: no '*' pattern
mmbctl add in eth* drop
              ^~~~" -- add in 'eth*' drop
t "a rule's interface name with a space" 2 "Error: an interface name has no '/', ':' or white space
mmbctl add in a b drop
              ^~~" -- add in 'a b' drop
t "enable with an extra word points at it" 2 'Error: unexpected word after IFACE
mmbctl enable eth0 eth1
                   ^~~~' -- enable eth0 eth1
t "disable without IFACE" 2 "" -- disable
t "show without object" 2 "" -- show
t "show of an unknown object points at it" 2 'Error: unknown object "tables!", try: interfaces, stats, tables, connections, settings
mmbctl show tables!
            ^~~~~~~' -- show tables!
t "show interfaces with an extra word" 2 "" -- show interfaces now

# Connections and settings: the words are checked before the kernel is asked.
t "set without a setting points past the end" 2 'Error: missing SETTING: timeout, conn-max, tcp-loose or rp-filter
mmbctl set
           ^' -- set
t "set of an unknown setting points at it" 2 'Error: unknown setting "timeouts": timeout, conn-max, tcp-loose or rp-filter
mmbctl set timeouts udp-replied 5
           ^~~~~~~~' -- set timeouts udp-replied 5
t "set timeout of an unknown state points at it" 2 'Error: unknown state "tcp-established2" ("mmbctl help states" lists them)
mmbctl set timeout tcp-established2 5
                   ^~~~~~~~~~~~~~~~' -- set timeout tcp-established2 5
t "set timeout 0 is refused" 2 'Error: a timeout is a number from 1 to 1000000
mmbctl set timeout icmp 0
                        ^' -- set timeout icmp 0
t "set timeout tcp-unacknowledged 0 is refused" 2 'Error: a timeout is a number from 1 to 1000000
mmbctl set timeout tcp-unacknowledged 0
                                      ^' -- set timeout tcp-unacknowledged 0
t "set timeout without seconds" 2 'Error: missing SECONDS of udp-replied
mmbctl set timeout udp-replied
                               ^' -- set timeout udp-replied
t "set conn-max past the limit" 2 'Error: conn-max is a number from 1 to 4194304
mmbctl set conn-max 4194305
                    ^~~~~~~' -- set conn-max 4194305
t "set conn-max of a negative number" 2 "" -- set conn-max -1
t "set conn-max of 0x10 (decimal only)" 2 "" -- set conn-max 0x10
t "set tcp-loose takes on or off" 2 'Error: tcp-loose is on or off
mmbctl set tcp-loose yes
                     ^~~' -- set tcp-loose yes
t "flush connections takes no more words" 2 'Error: unexpected word
mmbctl flush connections now
                         ^~~' -- flush connections now
t "flush of something else points at it" 2 'Error: unexpected word (flush, or flush connections)
mmbctl flush rules
             ^~~~~' -- flush rules
t "monitor takes no word" 2 "" -- monitor now
t "monitor log takes no more" 2 'Error: unexpected word
mmbctl monitor log now
                   ^~~' -- monitor log now
t "a log prefix over 64 bytes points at it" 2 "Error: a log prefix is 1 to 64 bytes, not 65
mmbctl add udp-dport 1 log prefix $(printf 'x%.0s' $(seq 65))
                                  $(printf '%.0s' 1)^$(printf '~%.0s' $(seq 64))" -- add udp-dport 1 log prefix "$(printf 'x%.0s' $(seq 65))"
t "a log level that is none points at it" 2 'Error: unknown log level "loud": emerg, alert, crit, err, warn, notice, info, debug or 0-7
mmbctl add udp-dport 1 log level loud
                                 ^~~~' -- add udp-dport 1 log level loud
t "show connections takes no word" 2 "" -- show connections all
t "add-stateful parses as add does" 2 'Error: unknown field "tcp-dprot", did you mean "tcp-dport"?
mmbctl add-stateful tcp-dprot 80 accept
                    ^~~~~~~~~' -- add-stateful tcp-dprot 80 accept
t "map outside a stateful rule is refused before it is sent" 2 'Error: map is per connection: it needs add-stateful
mmbctl add tcp-dport 80 map ip-saddr 10.0.0.1
                        ^~~' -- add tcp-dport 80 map ip-saddr 10.0.0.1
t "a port range is checked before it is sent" 2 'Error: a port range is FIRST-LAST, 1 <= FIRST <= LAST <= 65535
mmbctl add-stateful tcp-syn shuffle tcp-sport 2000-1000
                                              ^~~~~~~~~' -- add-stateful tcp-syn shuffle tcp-sport 2000-1000
t "a stateless mod of an address is fine" 1 "" -- add tcp-dport 80 mod ip-saddr 10.0.0.1
t "strip takes no value: the value is pointed at" 2 'Error: strip takes no value
mmbctl add tcp-syn strip tcp-opt-mss 1400
                                     ^~~~' -- add tcp-syn strip tcp-opt-mss 1400
t "option data that is too long is refused before it is sent" 2 'Error: TCP option data is 0x and 0 to 38 hex bytes
mmbctl add all add tcp-opt 253 0x000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20212223242526
                               ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~' -- add all add tcp-opt 253 0x000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20212223242526

# -f reads the whole file before it talks to the kernel: errors in it name
# the file, the line and the word, whatever the line endings and comments.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'add ip-ttl 1 drop # one\r\n\n  # nothing\nadd ip-ttl 2 drop#two\nadd ip-ttl 999 drop' > "$tmp/bad"
t "-f: an error names file, line and word" 2 "Error: 999 does not fit in ip-ttl (8 bits)
$tmp/bad:5: add ip-ttl 999 drop
$(printf '%*s' $((${#tmp} + 19)) '')^~~" -- -f "$tmp/bad"
printf 'add ip-ttl 1 drop\nfrob\n' > "$tmp/cmd"
t "-f: only add, add-stateful, del, flush, enable and set" 2 "Error: a file holds add, add-stateful, del, flush, enable and set commands
$tmp/cmd:2: frob
$(printf '%*s' $((${#tmp} + 8)) '')^~~~" -- -f "$tmp/cmd"
printf 'enable eth0\ndisable eth0\n' > "$tmp/disable"
t "-f: no disable in a file" 2 "Error: a file holds add, add-stateful, del, flush, enable and set commands
$tmp/disable:2: disable eth0
$(printf '%*s' $((${#tmp} + 12)) '')^~~~~~~" -- -f "$tmp/disable"
printf 'set conn-max 10\nenable eth0 eth1\n' > "$tmp/enable"
t "-f: enable takes one interface" 2 "Error: unexpected word after IFACE
$tmp/enable:2: enable eth0 eth1
$(printf '%*s' $((${#tmp} + 23)) '')^~~~" -- -f "$tmp/enable"
printf 'enable ../x\n' > "$tmp/enable2"
t "-f: enable of a name no interface can have" 2 "Error: not a valid interface name or pattern: an interface name has no '/', ':' or white space
$tmp/enable2:1: enable ../x
$(printf '%*s' $((${#tmp} + 19)) '')^~~~" -- -f "$tmp/enable2"
printf 'flush\nset timeout udp-replied 0\n' > "$tmp/set"
t "-f: a bad setting names its word" 2 "Error: a timeout is a number from 1 to 1000000
$tmp/set:2: set timeout udp-replied 0
$(printf '%*s' $((${#tmp} + 32)) '')^" -- -f "$tmp/set"
t "save takes no word" 2 'Error: unexpected word (save > FILE writes a file)
mmbctl save now
            ^~~' -- save now
t "save has no JSON form" 2 'Error: save writes -f syntax; -j list and -j show give JSON
mmbctl save
       ^~~~' -- -j save
printf 'flush x\n' > "$tmp/flush"
t "-f: flush takes no word" 2 "Error: unexpected word after flush
$tmp/flush:1: flush x
$(printf '%*s' $((${#tmp} + 16)) '')^" -- -f "$tmp/flush"
printf 'add ip-ttl 1 drop\0\n' > "$tmp/nul"
t "-f: a NUL byte is refused" 2 "Error: $tmp/nul: not a text file (it holds a NUL byte)" -- -f "$tmp/nul"
t "-f: a missing file is refused" 1 "Error: $tmp/none: No such file or directory" -- -f "$tmp/none"
t "-f: an error on stdin names it -" 2 "Error: unknown field \"frob\" (mmbctl help fields, help targets)
-:1: add frob 1 drop
         ^~~~" -- -f - < <(printf 'add frob 1 drop\n')

# help TOPIC: the words of one kind, one per line, each line's first word.
n=$((n + 1))
if [ "$("$MMBCTL" help fields | wc -l)" -eq 75 ] && "$MMBCTL" help fields | cut -d' ' -f1 | grep -qx tcp-opt-mss &&
	[ "$("$MMBCTL" help targets | tr '\n' ' ')" = "drop accept mod strip add map shuffle masquerade count reject log " ] &&
	"$MMBCTL" help states | grep -qx udp-unreplied; then
	echo "ok $n - cli: help fields, targets, states list their words"
else
	failed=$((failed + 1))
	echo "not ok $n - cli: help fields, targets, states list their words"
fi
t "help of an unknown topic points at it" 2 'Error: unknown topic "frob", try: fields, targets, states
mmbctl help frob
            ^~~~' -- help frob

# Files are read as a shell reads words: list's quoted output reads back.
printf "add ip-ttl '<' 999 drop # quoted as list prints it\n" > "$tmp/quoted"
t "-f: a quoted word is read as the shell reads it" 2 "Error: 999 does not fit in ip-ttl (8 bits)
$tmp/quoted:1: add ip-ttl < 999 drop
$(printf '%*s' $((${#tmp} + 24)) '')^~~" -- -f "$tmp/quoted"
printf 'add ip-ttl "<=" 1 drop\nadd ip-ttl \\> 999 drop\n' > "$tmp/quoted2"
t "-f: double quotes and a backslash too" 2 "Error: 999 does not fit in ip-ttl (8 bits)
$tmp/quoted2:2: add ip-ttl > 999 drop
$(printf '%*s' $((${#tmp} + 25)) '')^~~" -- -f "$tmp/quoted2"
printf "add ip-ttl '<' 999 drop#c 'x\n" > "$tmp/hash"
t "-f: on a line with quotes, a # inside a word starts a comment too" 2 "Error: 999 does not fit in ip-ttl (8 bits)
$tmp/hash:1: add ip-ttl < 999 drop
$(printf '%*s' $((${#tmp} + 22)) '')^~~" -- -f "$tmp/hash"
printf "add ip-ttl 1 drop\nadd ip-ttl '< 1 drop\n" > "$tmp/open"
t "-f: a quote left open is refused" 2 "Error: $tmp/open:2: a quote is left open" -- -f "$tmp/open"
t "-b: a quote left open is refused" 2 "Error: -:2: a quote is left open" -- -b - \
	< <(printf "help\nadd ip-ttl '< 1 drop\n")
printf 'help\nadd ip-ttl "<" 999 drop\n' > "$tmp/script-q"
t "-b: quoted words" 2 "Error: 999 does not fit in ip-ttl (8 bits)
$tmp/script-q:2: add ip-ttl < 999 drop
$(printf '%*s' $((${#tmp} + 26)) '')^~~
Command failed $tmp/script-q:2" -- -b "$tmp/script-q"

# -b runs line by line: a line that does not parse stops the run there,
# with the error at its word and the line named.
printf '# a comment\n\n  help  # again\nadd ip-ttl 999 drop\nfrob\n' > "$tmp/script"
t "-b: the first bad line stops the run and is named" 2 "Error: 999 does not fit in ip-ttl (8 bits)
$tmp/script:4: add ip-ttl 999 drop
$(printf '%*s' $((${#tmp} + 22)) '')^~~
Command failed $tmp/script:4" -- -b "$tmp/script"
printf 'help\n-f\n' > "$tmp/script-f"
t "-b: a line -f without a file" 2 "Error: missing FILE
$tmp/script-f:2: -f
$(printf '%*s' $((${#tmp} + 16)) '')^
Command failed $tmp/script-f:2" -- -b "$tmp/script-f"
printf -- '-j list\n' > "$tmp/script-j"
t "-b: options other than -f are refused on a line" 2 "Error: only -f takes effect on a line of -b
$tmp/script-j:1: -j list
$(printf '%*s' $((${#tmp} + 13)) '')^~
Command failed $tmp/script-j:1" -- -b "$tmp/script-j"
printf -- '-f %s\n' "$tmp/bad" > "$tmp/script-bad"
t "-b: a -f line's error names the file it applies" 2 "Error: 999 does not fit in ip-ttl (8 bits)
$tmp/bad:5: add ip-ttl 999 drop
$(printf '%*s' $((${#tmp} + 19)) '')^~~
Command failed $tmp/script-bad:1" -- -b "$tmp/script-bad"
printf 'help\0\n' > "$tmp/script-nul"
t "-b: a NUL byte is refused" 2 "Error: $tmp/script-nul:1: a NUL byte in the line" -- -b "$tmp/script-nul"
t "-b: a missing file is refused" 1 "Error: $tmp/none: No such file or directory" -- -b "$tmp/none"
t "-b takes no command" 2 "Error: -b FILE takes no command" -- -b "$tmp/script" list
t "-f and -b do not go together" 2 "Error: -f and -b do not go together" -- -f "$tmp/bad" -b "$tmp/script"
t "-b: an empty script succeeds" 0 "" -- -b /dev/null
t "-b: a script of help lines on stdin succeeds" 0 "" -- -b - < <(printf 'help\nhelp\n')

# trace: the packet's words are checked before the kernel is asked.
t "trace without a packet points past the end" 2 'Error: trace what? FIELD VALUE... or hex BYTES
mmbctl trace
             ^' -- trace
t "trace: a field mmb makes points at it" 2 'Error: mmb makes ip-len; give the packet as hex BYTES to set it
mmbctl trace ip-ttl 3 ip-len 40
                      ^~~~~~' -- trace ip-ttl 3 ip-len 40
t "trace: a field without its value" 2 'Error: ip-ttl needs a value
mmbctl trace ip-ttl
                    ^' -- trace ip-ttl
t "trace: a value too large for its field" 2 'Error: 256 does not fit in ip-ttl (8 bits)
mmbctl trace ip-ttl 256
                    ^~~' -- trace ip-ttl 256
t "trace: an address with a prefix" 2 "Error: a traced packet's address takes no prefix
mmbctl trace ip-saddr 10.0.0.0/8
                      ^~~~~~~~~~" -- trace ip-saddr 10.0.0.0/8
t "trace: IPv4 and IPv6 fields" 2 "Error: the family does not go with word 1's
mmbctl trace ip-ttl 3 ip6-hop-limit 3
                      ^~~~~~~~~~~~~" -- trace ip-ttl 3 ip6-hop-limit 3
t "trace: TCP and UDP fields" 2 "Error: the protocol does not go with word 1's
mmbctl trace tcp-dport 1 udp-dport 2
                         ^~~~~~~~~" -- trace tcp-dport 1 udp-dport 2
t "trace: ip-proto against a TCP field" 2 "Error: the protocol does not go with word 2's
mmbctl trace ip-proto udp tcp-dport 2
                          ^~~~~~~~~" -- trace ip-proto udp tcp-dport 2
t "trace: a field twice" 2 'Error: ip-ttl is given twice
mmbctl trace ip-ttl 3 ip-ttl 4
                      ^~~~~~' -- trace ip-ttl 3 ip-ttl 4
t "trace: odd hex digits" 2 'Error: hex bytes come in pairs of digits
mmbctl trace hex 45000
                 ^~~~~' -- trace hex 45000
t "trace: not hex" 2 'Error: not hex bytes
mmbctl trace hex 4500 zz
                      ^~' -- trace hex 4500 zz
# 9001 bytes: the error's first line (the next ones point at the long word).
out=$("$MMBCTL" trace hex 45 "$(head -c 9000 /dev/zero | od -An -v -tx1 | tr -d ' \n')" 2>&1)
status=$?
n=$((n + 1))
if [ "$status" -eq 2 ] && [ "$(head -n 1 <<< "$out")" = "Error: a packet is at most 9000 bytes" ]; then
	echo "ok $n - cli: trace: a packet longer than a jumbo frame's"
else
	failed=$((failed + 1))
	echo "not ok $n - cli: trace: a packet longer than a jumbo frame's (exit $status)"
	head -n 1 <<< "$out" | sed 's/^/#   /'
fi
t "trace: fields then hex" 2 'Error: a packet is given as fields or as hex, not both
mmbctl trace ip-ttl 3 hex 45
                      ^~~' -- trace ip-ttl 3 hex 45
t "show stats takes no more words" 2 'Error: unexpected word
mmbctl show stats x
                  ^' -- show stats x

# Without the module, commands that need it fail with status 1 and say why.
if [ ! -e /sys/module/mmb ]; then
	t "without the module, show interfaces says it is not loaded" 1 \
		'Error: the mmb kernel module is not loaded (no generic netlink family "mmb")' -- show interfaces
	t "without the module, enable says it is not loaded" 1 \
		'Error: the mmb kernel module is not loaded (no generic netlink family "mmb")' -- enable eth0
else
	n=$((n + 1)); echo "ok $n - cli: module-absent errors # SKIP mmb is loaded"
	n=$((n + 1)); echo "ok $n - cli: module-absent errors # SKIP mmb is loaded"
fi

# Issue 42: the CLI says the right thing.
t "a misspelled target after a match: target or field, and the nearest word" 2 'Error: unknown target or field "acept", did you mean "accept"?
mmbctl add tcp-dport 80 acept
                        ^~~~~' -- add tcp-dport 80 acept
t "a netfilter verdict in capitals: its word here" 2 'Error: unknown target or field "DROP", did you mean "drop"?
mmbctl add all DROP
               ^~~~' -- add all DROP
t "jump: no chains here" 2 'Error: unknown target or field "jump": mmb has no chains: order rules with priority N (mmbctl import translates nft chains)
mmbctl add tcp-dport 80 jump
                        ^~~~' -- add tcp-dport 80 jump
t "a misspelled field before any match: field, and the nearest" 2 'Error: unknown field "ip-sadr", did you mean "ip-saddr"?
mmbctl add ip-sadr 10.0.0.1 drop
           ^~~~~~~' -- add ip-sadr 10.0.0.1 drop
t "a bad option: the error and one line, not the usage" 2 "$(printf '%s\n' "$(basename "$MMBCTL"): unrecognized option '--frob'" 'Try "mmbctl --help" for the usage.' | sed "s|^$(basename "$MMBCTL")|$MMBCTL|")" -- --frob
t "no command: the error and one line" 2 'Error: no command
Try "mmbctl --help" for the usage.' --
t "mod ip-ttl +1 is refused, not taken as 1" 2 'Error: ip-ttl takes a value, not a sign: "+1" is no value of it
mmbctl add all mod ip-ttl +1
                          ^~' -- add all mod ip-ttl +1
t "a signed match value is refused" 2 'Error: ip-ttl takes a value, not a sign: "-1" is no value of it
mmbctl add ip-ttl -1 drop
                  ^~' -- add ip-ttl -1 drop
t "an IPv6 address to ip-saddr names ip6-saddr" 2 'Error: ip-saddr takes an IPv4 address: for an IPv6 address use ip6-saddr
mmbctl add ip-saddr 2001:db8::1 drop
                    ^~~~~~~~~~~' -- add ip-saddr 2001:db8::1 drop
t "an IPv4 prefix to ip6-daddr names ip-daddr" 2 'Error: ip6-daddr takes an IPv6 address: for an IPv4 address use ip-daddr
mmbctl add ip6-daddr 10.0.0.0/8 drop
                     ^~~~~~~~~~' -- add ip6-daddr 10.0.0.0/8 drop
t "ip-proto udp with a TCP port is caught before the kernel" 2 'Error: rule mixes fields of different L4 protocols (ip-proto says udp)
mmbctl add ip-proto udp tcp-dport 80 drop
                        ^~~~~~~~~' -- add ip-proto udp tcp-dport 80 drop
t "IPv4 and IPv6 fields in one rule are caught before the kernel" 2 'Error: rule mixes IPv4 and IPv6 fields (ip-saddr)
mmbctl add ip-saddr 10.0.0.1 ip6-saddr ::1 drop
                             ^~~~~~~~~' -- add ip-saddr 10.0.0.1 ip6-saddr ::1 drop
t "net-proto ip6 with an IPv4 field" 2 'Error: rule mixes IPv4 and IPv6 fields (net-proto)
mmbctl add net-proto ip6 ip-ttl 1 drop
                         ^~~~~~' -- add net-proto ip6 ip-ttl 1 drop
t "a match of one protocol, a mod of another" 2 'Error: rule mixes fields of different L4 protocols (tcp-dport is tcp'"'"'s)
mmbctl add tcp-dport 1 mod udp-dport 2
                           ^~~~~~~~~' -- add tcp-dport 1 mod udp-dport 2
t "TCP option targets on a UDP rule" 2 "" -- add udp-dport 53 strip all
t "--dry-run: a good rule parses, no module needed" 0 "" -- --dry-run add ip-proto tcp tcp-dport 80 drop
t "--dry-run: in IFACE is not looked up" 0 "" -- --dry-run add-stateful in eth9 ip-saddr 10.0.0.0/24 accept
t "--dry-run: show and list need nothing" 0 "" -- --dry-run -s list
t "--dry-run: trace parses its packet" 0 "" -- --dry-run trace in eth0 ip-saddr 10.0.0.7 tcp-dport 80
t "--dry-run: a bad rule is still refused" 2 "" -- --dry-run add ip-ttl 999 drop
t "-P goes with show stats only" 2 'Error: -P (--prometheus) goes with show stats only' -- -P list
t "-P and -j do not go together" 2 'Error: -j and -P (--prometheus) do not go together' -- -j -P show stats
n=$((n + 1))
if "$MMBCTL" help fields | grep -qx 'ip-ttl  *8 bits  *0-255 (IPv4)' &&
	"$MMBCTL" help fields | grep -qx 'ip6-saddr  *128 bits IPv6 ADDRESS\[/PREFIX\] (IPv6)' &&
	"$MMBCTL" help fields | grep -qx 'ip-proto  *8 bits  *tcp, udp, icmp, icmp6 or 0-255 (IPv4, no mod)'; then
	echo "ok $n - cli: help fields shows each field's width and values"
else
	failed=$((failed + 1)); echo "not ok $n - cli: help fields shows each field's width and values"
fi
n=$((n + 1))
if "$MMBCTL" --help | grep -q 'strip { OPTION' && "$MMBCTL" --help | grep -q 'add OPTION' &&
	! "$MMBCTL" --help | grep -q 'only mss and wscale'; then
	echo "ok $n - cli: --help's grammar has strip and add"
else
	failed=$((failed + 1)); echo "not ok $n - cli: --help's grammar has strip and add"
fi

echo "1..$n"
[ "$failed" -eq 0 ]
