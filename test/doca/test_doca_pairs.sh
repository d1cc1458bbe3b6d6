#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The programs written to the vendor's API (compat/doca/samples), each as
# two processes, a DPU and a host, on the emulated BlueField configured in
# DOCA_COMCH_EMU (the programs know nothing of it: -p 03:00.0 -r 03:00.1
# on the DPU, -p 03:00.1 on the host, as on real hardware). Then what the
# vendor documents as errors. Then the DPU samples against a hostile host
# (doca_hostile_host): what it does to them stays with its own connection
# and within what was announced. Every wait is a process exit under a
# timeout or a line the program prints; no sleep decides anything.
#
# Usage: test_doca_pairs.sh <build/compat/doca/samples> <doca_hostile_host>
set -u
B=${1:?usage: $0 build/compat/doca/samples build/test/doca/doca_hostile_host}
H=${2:?usage: $0 build/compat/doca/samples build/test/doca/doca_hostile_host}
dir=$(mktemp -d /tmp/doca-pairs.XXXXXX)
trap 'rm -rf "$dir"' EXIT
export DOCA_COMCH_EMU="dpu 03:00.0 pf0=03:00.1 pf0vf0=03:00.2 path=$dir/link"
fail=0

# wait_grep -F|-E FILE PATTERN PID: until FILE has a line that PATTERN
# (fixed text, or an extended regular expression) matches, or PID exited;
# 60 s at most.
wait_grep() {
	local i
	for i in $(seq 1 600); do
		grep -q "$1" -- "$3" "$2" 2>/dev/null && return 0
		kill -0 "$4" 2>/dev/null || return 1
		timeout 0.1 tail -f /dev/null 2>/dev/null
	done
	return 1
}
wait_line() { wait_grep -F "$@"; }
wait_match() { wait_grep -E "$@"; }

# wait_pid PID SECONDS: its exit status; killed (status 124) if it is
# still running after SECONDS.
wait_pid() {
	local i
	for i in $(seq 1 $(($2 * 10))); do
		kill -0 "$1" 2>/dev/null || break
		timeout 0.1 tail -f /dev/null 2>/dev/null
	done
	if kill -0 "$1" 2>/dev/null; then
		kill -CONT "$1" 2>/dev/null
		kill -9 "$1" 2>/dev/null
		wait "$1" 2>/dev/null
		return 124
	fi
	wait "$1"
}

# run_pair NAME "SERVER CMD" "CLIENT CMD" SERVER_EXPECT CLIENT_EXPECT [READY]
# READY: a line the server prints once it listens; the client starts
# after it (the endpoint API documents a connect before listen as a
# failure); without it both start at once.
run_pair() {
	local name=$1 scmd=$2 ccmd=$3 es=$4 ec=$5 ready=${6:-} spid src crc
	timeout 120 $B/$scmd > "$dir/$name.srv" 2>&1 &
	spid=$!
	if [ -n "$ready" ] && ! wait_line "$dir/$name.srv" "$ready" $spid; then
		echo "FAIL $name: the server did not say \"$ready\""
		cat "$dir/$name.srv"
		fail=1
		kill $spid 2>/dev/null
		wait $spid
		return
	fi
	timeout 120 $B/$ccmd > "$dir/$name.cli" 2>&1
	crc=$?
	wait $spid
	src=$?
	if [ $src -ne 0 ] || [ $crc -ne 0 ] ||
	   ! grep -qF "$es" "$dir/$name.srv" || ! grep -qF "$ec" "$dir/$name.cli"; then
		echo "FAIL $name: server rc $src, client rc $crc"
		echo "--- server: $scmd"; cat "$dir/$name.srv"
		echo "--- client: $ccmd"; cat "$dir/$name.cli"
		fail=1
	else
		echo "ok $name"
	fi
}

run_pair ctrl \
	"doca_comch_ctrl_server -p 03:00.0 -r 03:00.1 -t pong" \
	"doca_comch_ctrl_client -p 03:00.1 -t ping" \
	'server: message from the client: "ping"' 'client: answer from the server: "pong"'
# The same function, found on the second representor (another host function).
run_pair ctrl-vf \
	"doca_comch_ctrl_server -p 0000:03:00.0 -r 0000:03:00.2 -t pong-vf" \
	"doca_comch_ctrl_client -p 03:00.2 -t ping-vf" \
	'server: message from the client: "ping-vf"' 'client: answer from the server: "pong-vf"'
run_pair fast-path \
	"doca_comch_data_server -p 03:00.0 -r 03:00.1 -t from-dpu -n 20000" \
	"doca_comch_data_client -p 03:00.1 -t from-host -n 20000" \
	'server: received 20000 messages through the fast path, the last: "from-host #19999"' \
	'client: received 20000 messages through the fast path, the last: "from-dpu #19999"'
run_pair endpoint \
	"doca_cc_ep_service -p 03:00.0 -r 03:00.1 -t pong -n 1" \
	"doca_cc_ep_client -p 03:00.1 -t ping -n 5000" \
	'service: answered 5000 messages from 1 client(s)' \
	'client: 5000 sent, 5000 received; peer statistics: sent 5000 (20000 bytes), received 5000 (20000 bytes), in flight 0' \
	'service: listening'

head -c 5000011 /dev/urandom > "$dir/file.in"
run_pair file \
	"doca_comch_file_server -p 03:00.0 -r 03:00.1 -f $dir/file.out -s 300" \
	"doca_comch_file_client -p 03:00.1 -f $dir/file.in" \
	'server: received 5000011 of 5000011 bytes in 1228 chunks' \
	': match; back-pressure retries: '
if ! cmp -s "$dir/file.in" "$dir/file.out"; then
	echo "FAIL file: the file written differs from the file sent"
	fail=1
fi
# The receiver stalled 300 ms with a 4-message queue: the sender must
# have met back pressure (retries > 0).
if grep -q 'back-pressure retries: 0$' "$dir/file.cli"; then
	echo "FAIL file: no back pressure although the DPU stalled"
	fail=1
fi

# expect NAME RC_WANTED TEXT CMD...: exit status and a line of output.
expect() {
	local name=$1 want=$2 text=$3 rc
	shift 3
	timeout 60 "$@" > "$dir/$name.out" 2>&1
	rc=$?
	if [ $rc -ne "$want" ] || ! grep -qF -- "$text" "$dir/$name.out"; then
		echo "FAIL $name: rc $rc (expected $want), output:"
		cat "$dir/$name.out"
		echo "(expected a line with: $text)"
		fail=1
	else
		echo "ok $name"
	fi
}

# Documented: a connect before the service listens fails.
expect ep-connect-before-listen 1 "Connection aborted" \
	$B/doca_cc_ep_client -p 03:00.1 -t early
# argp as the vendor's samples use it.
expect help 0 "-p, --pci-addr <PCI-ADDRESS>" $B/doca_comch_ctrl_server -h
expect help-rep 0 "-r, --rep-pci <PCI-ADDRESS>" $B/doca_comch_ctrl_server --help
expect unknown-option 1 'unknown option "--bogus"' $B/doca_comch_ctrl_client --bogus
expect missing-value 1 '-p: a value is expected' $B/doca_comch_ctrl_client -p
# A PCI address nothing is configured at.
expect no-such-device 1 "No suitable device at PCI address 04:00.0" \
	$B/doca_comch_ctrl_client -p 04:00.0
# A server on a host device: the capability check refuses it.
expect server-on-host 1 "No suitable device at PCI address 03:00.1" \
	$B/doca_comch_ctrl_server -p 03:00.1 -r 03:00.1
# A bad emulation configuration names what is wrong.
DOCA_COMCH_EMU="dpu 03:00.0 colour=blue" expect bad-config 1 'unknown key "colour"' \
	$B/doca_comch_ctrl_client -p 03:00.1
DOCA_COMCH_EMU= DOCA_COMCH_EMU_CONF=$dir/nonexistent expect bad-conf-file 1 \
	"DOCA_COMCH_EMU_CONF=$dir/nonexistent: cannot read" $B/doca_comch_ctrl_client -p 03:00.1

# --- The DPU samples against a hostile host.

# hostile_file NAME "SERVER OPTIONS" SCRIPT RC_WANTED SIZE_WANTED TEXT...:
# doca_comch_file_server writing $dir/NAME.out, the hostile host sending
# SCRIPT (doca_hostile_host.c); the server must exit with RC_WANTED,
# leave SIZE_WANTED bytes in its file and print every TEXT.
hostile_file() {
	local name=$1 sopt=$2 script=$3 want=$4 size=$5 spid src hrc got t bad=
	shift 5
	timeout 120 $B/doca_comch_file_server -p 03:00.0 -r 03:00.1 -f "$dir/$name.out" $sopt \
		> "$dir/$name.srv" 2>&1 &
	spid=$!
	if ! wait_line "$dir/$name.srv" "server: listening" $spid; then
		bad="the server did not listen"
	else
		timeout 120 $H 03:00.1 file "$script" > "$dir/$name.hos" 2>&1
		hrc=$?
		[ $hrc -eq 0 ] || bad="the hostile host exited $hrc"
	fi
	wait $spid
	src=$?
	got=$(stat -c %s "$dir/$name.out" 2>/dev/null)
	[ $src -eq "$want" ] || bad="$bad${bad:+; }server rc $src (expected $want)"
	[ "$got" = "$size" ] || bad="$bad${bad:+; }the file has ${got:-no} bytes (expected $size)"
	for t in "$@"; do
		grep -qF -- "$t" "$dir/$name.srv" || bad="$bad${bad:+; }no line with \"$t\""
	done
	if [ -n "$bad" ]; then
		echo "FAIL $name: $bad"
		echo "--- server: doca_comch_file_server $sopt"; cat "$dir/$name.srv"
		echo "--- hostile host: $script"; cat "$dir/$name.hos" 2>/dev/null
		fail=1
	else
		echo "ok $name"
	fi
	rm -f "$dir/$name.out"
}

# A host announces 10000 bytes and sends 50000: the server writes the
# 10 chunks that fit, refuses the 11th, says why and exits 1.
hostile_file file-overrun "" "start:10000 chunks:50 end" 1 10000 \
	"Protocol violation: chunk 10 (1000 bytes) would pass the announced size of 10000 bytes; stopped writing at 10000 bytes"
# A matching FILE_END, then more chunks and another FILE_END: the file
# checked stays as it was.
hostile_file file-after-end "" "start:5000 chunks:5 end chunks:20 end" 1 5000 \
	"server: received 5000 of 5000 bytes in 5 chunks; CRC-32" ": match" \
	"Protocol violation: a message (type 2) after FILE_END; stopped writing at 5000 bytes"
# A second FILE_START in the middle of a file.
hostile_file file-second-start "" "start:5000 chunks:2 start:3000 chunks:3 end" 1 2000 \
	"Protocol violation: a second FILE_START; stopped writing at 2000 bytes"
# More than --max-size announced: nothing is written.
hostile_file file-max-size "--max-size 100000" "start:1000000 chunks:5 end" 1 0 \
	"Protocol violation: the host announced 1000000 bytes, more than --max-size 100000; stopped writing at 0 bytes"
expect file-help 0 "-m, --max-size <BYTES>" $B/doca_comch_file_server -h

# While doca_comch_data_server serves an honest client, a second
# connection to it announces 3 consumers: the honest client gets all its
# messages, the server exits 0. The order is made certain by stopping
# the processes (SIGSTOP): the server learns the honest client's consumer
# first, then the client is held still (the exchange cannot end) until
# the server has seen the second connection's consumers or closed it.
# The exchange must outlast the script's reaction to a line (a tenth of
# a second and what the load adds): 20,000 messages took 30 ms, and the
# server had exited before it was stopped; a million take seconds.
hostile_data() {
	local name=data-second-conn spid cpid hpid src crc bad= n=1000000
	# Neither under timeout(1): they are stopped and continued below
	# (wait_pid bounds them).
	$B/doca_comch_data_server -p 03:00.0 -r 03:00.1 -t from-dpu -n $n > "$dir/$name.srv" 2>&1 &
	spid=$!
	wait_line "$dir/$name.srv" "server: listening" $spid || bad="the server did not listen"
	$B/doca_comch_data_client -p 03:00.1 -t from-host -n $n > "$dir/$name.cli" 2>&1 &
	cpid=$!
	if [ -z "$bad" ] && ! wait_line "$dir/$name.srv" "server: client connected" $spid; then
		bad="the client did not connect"
	fi
	kill -STOP $spid
	if [ -z "$bad" ] && ! wait_line "$dir/$name.cli" "Consumer 1 started" $cpid; then
		bad="the client did not start its consumer"
	fi
	kill -STOP $cpid
	kill -CONT $spid
	if [ -z "$bad" ] && ! wait_line "$dir/$name.srv" "Peer consumer 1 is there" $spid; then
		bad="the server did not see the client's consumer"
	fi
	timeout 120 $H 03:00.1 consumers doca_comch_data_sample 3 100 > "$dir/$name.hos" 2>&1 &
	hpid=$!
	if [ -z "$bad" ] && ! wait_match "$dir/$name.srv" \
	     "Peer consumer 3 is there|serving one client; closing a second connection" $spid; then
		bad="the server saw neither the second connection's consumers nor closed it"
	fi
	kill -CONT $cpid
	wait_pid $cpid 100
	crc=$?
	wait_pid $spid 100
	src=$?
	kill $hpid 2>/dev/null
	wait $hpid
	[ $crc -eq 0 ] || bad="$bad${bad:+; }the honest client exited $crc"
	[ $src -eq 0 ] || bad="$bad${bad:+; }the server exited $src"
	grep -qF "client: received $n messages through the fast path, the last: \"from-dpu #$((n - 1))\"" \
		"$dir/$name.cli" || bad="$bad${bad:+; }the honest client did not receive everything"
	grep -qF "server: received $n messages through the fast path, the last: \"from-host #$((n - 1))\"" \
		"$dir/$name.srv" || bad="$bad${bad:+; }the server did not receive everything"
	if [ -n "$bad" ]; then
		echo "FAIL $name: $bad"
		echo "--- server"; cat "$dir/$name.srv"
		echo "--- honest client"; cat "$dir/$name.cli"
		echo "--- hostile host"; cat "$dir/$name.hos"
		fail=1
	else
		echo "ok $name"
	fi
}
hostile_data

exit $fail
