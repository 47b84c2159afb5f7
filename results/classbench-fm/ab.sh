#!/bin/bash
export PATH=/work/main/userspace:$PATH
D=/work/main/build/ab
DEV=veth0
pg() { echo "$2" > "/proc/net/pktgen/$1"; }
ip link add veth0 type veth peer name veth1; ip link set veth0 up; ip link set veth1 up
ip addr add 10.0.0.1/24 dev veth0
pg kpktgend_0 rem_device_all; pg kpktgend_0 "add_device veth0"
MAC=$(cat /sys/class/net/veth0/address)
run() {
	pg $DEV "count $1"; pg $DEV "dst_mac $MAC"; pg $DEV "xmit_mode netif_receive"; pg $DEV "imix_weights 60,1"
	pg $DEV "dst_min 1.0.0.0"; pg $DEV "dst_max 223.255.255.255"; pg $DEV "flag IPDST_RND"
	pg $DEV "flows 0"; pg $DEV "src_min 1.0.0.0"; pg $DEV "src_max 223.255.255.255"; pg $DEV "flag IPSRC_RND"
	pg $DEV "udp_src_min 0"; pg $DEV "udp_src_max 65535"; pg $DEV "udp_dst_min 0"; pg $DEV "udp_dst_max 65535"
	pg $DEV "flag UDPSRC_RND"; pg $DEV "flag UDPDST_RND"
	echo start > /proc/net/pktgen/pgctrl
	grep -o '[0-9]*pps' /proc/net/pktgen/$DEV | head -n 1
}
mmbctl enable veth0
for r in 1 2 3 4 5 6; do
	for v in none do/mmb fm/mmb fm/mmb-nodef fm/mmb-alldrop; do
		mmbctl flush
		[ $v = none ] || mmbctl -f $D/$v > /dev/null
		[ $v = none ] && mmbctl disable veth0
		echo "AB,$r,$v,$(mmbctl -j show tables 2>/dev/null | jq length),$(run 500000)"
		[ $v = none ] && mmbctl enable veth0
	done
done
