/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * mmb: a middlebox and firewall on the netdev rx_handler hook.
 *
 * Generic netlink interface
 * =========================
 *
 * Family name MMB_GENL_NAME ("mmb"), version MMB_GENL_VERSION. The family is
 * visible in every network namespace; all state (enabled interfaces, rules,
 * connections) belongs to the namespace of the requesting socket.
 *
 * Every command that changes state requires CAP_NET_ADMIN in the user
 * namespace that owns the network namespace. Attributes are validated
 * strictly: unknown attributes, wrong lengths and values out of range are
 * refused with an extended ACK that names the attribute.
 *
 * MMB_CMD_DEV_ENABLE
 *	Attach mmb to the ingress of one device. The device is named by
 *	MMB_A_IFINDEX or MMB_A_IFNAME (exactly one of them). Errors:
 *	ENODEV   no such device in this namespace;
 *	EEXIST   mmb is already enabled on the device;
 *	EBUSY    the device already has an rx_handler (bridge, bond, team,
 *	         macvlan, ipvlan, Open vSwitch port, ...);
 *	EINVAL   the device cannot take an rx_handler (loopback, ipvlan
 *	         slave, VRF) or is not an Ethernet device.
 *	The device is detached automatically when it is unregistered or
 *	moved to another namespace.
 *
 * MMB_CMD_DEV_DISABLE
 *	Detach mmb from a device, named as for MMB_CMD_DEV_ENABLE.
 *	ENOENT if mmb is not enabled on it.
 *
 * MMB_CMD_DEV_GET (dump only, unprivileged)
 *	One message per enabled device:
 *	  MMB_A_IFINDEX     u32
 *	  MMB_A_IFNAME      string
 *	  MMB_A_DEV_STATS   nest of enum mmb_stats_attr, summed over CPUs
 */
#ifndef _UAPI_LINUX_MMB_H
#define _UAPI_LINUX_MMB_H

#define MMB_GENL_NAME		"mmb"
#define MMB_GENL_VERSION	1

enum mmb_cmd {
	MMB_CMD_UNSPEC,
	MMB_CMD_DEV_ENABLE,
	MMB_CMD_DEV_DISABLE,
	MMB_CMD_DEV_GET,
	__MMB_CMD_MAX
};

#define MMB_CMD_MAX (__MMB_CMD_MAX - 1)

enum mmb_attr {
	MMB_A_UNSPEC,
	MMB_A_PAD,
	MMB_A_IFINDEX,		/* u32 */
	MMB_A_IFNAME,		/* NUL-terminated string, < IFNAMSIZ */
	MMB_A_DEV_STATS,	/* nest of enum mmb_stats_attr */
	__MMB_A_MAX
};

#define MMB_A_MAX (__MMB_A_MAX - 1)

/* Counters of what the hook saw on one device. */
enum mmb_stats_attr {
	MMB_STATS_A_UNSPEC,
	MMB_STATS_A_PAD,
	MMB_STATS_A_PACKETS,	/* u64: wire packets (GRO segments counted) */
	MMB_STATS_A_BYTES,	/* u64: bytes from the L3 header on */
	__MMB_STATS_A_MAX
};

#define MMB_STATS_A_MAX (__MMB_STATS_A_MAX - 1)

#endif /* _UAPI_LINUX_MMB_H */
