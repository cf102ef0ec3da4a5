#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Every /proc/sys/kernel/sched_economy* knob rejects garbage, negatives,
# out-of-range and unknown values with EINVAL (the error text of the
# write(2) is checked, through dd) and keeps its value; a write by uid 65534
# is refused with EACCES; good values are taken; price_ns <= limit_ns; each
# of the seven knobs exists, mode 0644, owned by root, and no other.
set -u
insmod /modules/sched_economy.ko
. ./econ_unload.sh
trap 'econ_unload || exit 1' EXIT
fail=0
K=/proc/sys/kernel

# write KNOB VALUE: one write(2) of VALUE; prints dd's error, if any.
write() {
	printf '%s' "$2" | dd of=$K/$1 conv=notrunc 2>&1 | grep -v records
}

check_rejected() {	# knob value [error text, default EINVAL's]
	before=$(cat $K/$1)
	want=${3:-Invalid argument}
	err=$(write "$1" "$2")
	if [ -z "$err" ]; then
		echo "not ok: $1 took '$2'"; fail=1
	elif [ "${err%"$want"}" = "$err" ]; then
		echo "not ok: $1 rejected '$2' with another error than '$want': $err"; fail=1
	elif [ "$(cat $K/$1)" != "$before" ]; then
		echo "not ok: $1 changed to $(cat $K/$1) after '$2'"; fail=1
	else
		echo "ok: $1 rejected '$2' (${err##*: })"
	fi
}

check_taken() {		# knob value
	if ! printf '%s' "$2" > $K/$1 || [ "$(cat $K/$1)" != "$2" ]; then
		echo "not ok: $1 did not take '$2'"; fail=1
	fi
}

check_unprivileged() {	# knob value
	before=$(cat $K/$1)
	if err=$(su -s /bin/sh nobody -c "id -u; printf '%s' '$2' > $K/$1" 2>&1); then
		echo "not ok: uid 65534 wrote $1"; fail=1
	elif [ "${err%%[!0-9]*}" != 65534 ] || [ "${err#*Permission denied}" = "$err" ]; then
		echo "not ok: the write as nobody failed for another reason: $err"; fail=1
	elif [ "$(cat $K/$1)" != "$before" ]; then
		echo "not ok: $1 changed by uid 65534"; fail=1
	else
		echo "ok: uid 65534 refused on $1"
	fi
}

for v in abc -1 2 99999999999999999999 1x 0x; do
	check_rejected sched_economy "$v"
done
for k in sched_economy_price_ns sched_economy_limit_ns; do
	for v in abc -1 -100000 0 999 1000000001 4294967296 \
		99999999999999999999 1.5; do
		check_rejected $k "$v"
	done
done
for v in abc -1 0 1025 4294967297; do
	check_rejected sched_economy_target_qlen "$v"
done
# Not a policy's name (as tcp_congestion_control: EINVAL), and a name no
# module provides (ENOENT, after request_module() found nothing).
for v in QUEUE ' ' 'a-b' abcdefghijklmnopq; do
	check_rejected sched_economy_policy "$v"
done
for v in nonsense queuex seedfixed; do
	check_rejected sched_economy_policy "$v" "No such file or directory"
done
for v in abc -1 0 101 4294967297; do
	check_rejected sched_economy_lend_pct "$v"
done
for v in abc -1 0 88 4294967297; do
	check_rejected sched_economy_hold_max "$v"
done
for v in abc -1 2 4294967297; do
	check_rejected sched_economy_groups "$v"
	check_rejected sched_economy_cross_user "$v"
done
for v in abc -1 1000001 4294967297; do
	check_rejected sched_economy_reply_us "$v"
done

for kv in sched_economy=1 sched_economy_price_ns=1000 \
	sched_economy_limit_ns=1000000000 sched_economy_price_ns=1000000000 \
	sched_economy_price_ns=1000 sched_economy_limit_ns=5000000 \
	sched_economy_target_qlen=1024 sched_economy_policy=seed \
	sched_economy_policy=fixed sched_economy_policy=queue \
	sched_economy_lend_pct=1 sched_economy_lend_pct=100 \
	sched_economy_groups=0 sched_economy_groups=1 \
	sched_economy_cross_user=1 sched_economy_cross_user=0 \
	sched_economy_hold_max=1 sched_economy_hold_max=87 \
	sched_economy_hold_max=16 sched_economy_reply_us=0 \
	sched_economy_reply_us=1000000 sched_economy_reply_us=20000 \
	sched_economy=0; do
	check_taken ${kv%%=*} "${kv#*=}"
done

# price_ns <= limit_ns, whichever of the two is written (issue 11): a
# price above the limit is EINVAL and both keep their values.
check_taken sched_economy_limit_ns 2000000
check_taken sched_economy_price_ns 100000
check_rejected sched_economy_price_ns 2000001
check_rejected sched_economy_limit_ns 99999
check_taken sched_economy_price_ns 2000000
check_rejected sched_economy_limit_ns 1999999
check_taken sched_economy_limit_ns 2000000
check_taken sched_economy_price_ns 1000
check_taken sched_economy_limit_ns 1000

for kv in sched_economy=1 sched_economy_price_ns=5000 \
	sched_economy_limit_ns=5000 sched_economy_target_qlen=8 \
	sched_economy_policy=seed sched_economy_lend_pct=50 \
	sched_economy_groups=0 sched_economy_cross_user=1 \
	sched_economy_hold_max=87 sched_economy_reply_us=0; do
	check_unprivileged ${kv%%=*} "${kv#*=}"
done
knobs=""
for k in sched_economy sched_economy_policy sched_economy_lend_pct \
	sched_economy_price_ns sched_economy_limit_ns \
	sched_economy_target_qlen sched_economy_groups \
	sched_economy_cross_user sched_economy_hold_max \
	sched_economy_reply_us; do
	knobs="$knobs $k"
	m=$(stat -c '%a %u' $K/$k 2>&1)
	if [ "$m" = "644 0" ]; then
		echo "ok: $k mode 644, owner 0"
	else
		echo "not ok: $k: mode and owner '$m', want '644 0'"; fail=1
	fi
done
# The policies the switch takes, read-only (as tcp_available_congestion_control).
a=$K/sched_economy_available_policies
v=$(cat $a 2>&1)
m=$(stat -c '%a %u' $a 2>&1)
if [ "$v" = "lend queue fixed seed" ] && [ "$m" = "444 0" ]; then
	echo "ok: ${a##*/} '$v', mode 444"
else
	echo "not ok: ${a##*/} '$v' mode '$m', want 'lend queue fixed seed', '444 0'"; fail=1
fi
for p in $v; do
	echo "$p" > $K/sched_economy_policy 2>/dev/null && [ "$(cat $K/sched_economy_policy)" = "$p" ] ||
		{ echo "not ok: listed policy $p not taken"; fail=1; }
done
echo lend > $K/sched_economy_policy
knobs="$knobs sched_economy_available_policies"
for f in $K/sched_economy*; do
	case "$knobs " in
	*" ${f##*/} "*) ;;
	*) echo "not ok: unexpected knob ${f##*/} (mode $(stat -c %a $f))"; fail=1 ;;
	esac
done
exit $fail
