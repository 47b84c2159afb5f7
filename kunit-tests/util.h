/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmb KUnit helpers: test netdevs and crafted frames.
 */
#ifndef _MMB_KUNIT_UTIL_H
#define _MMB_KUNIT_UTIL_H

#include <kunit/test.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>

struct net_device *mmbt_netdev_create(struct kunit *test);
void mmbt_netdev_destroy(struct net_device *dev);
struct sk_buff *mmbt_skb_udp4(struct net_device *dev, unsigned int payload);
void mmbt_receive(struct sk_buff *skb);

#endif /* _MMB_KUNIT_UTIL_H */
