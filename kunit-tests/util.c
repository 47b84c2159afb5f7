// SPDX-License-Identifier: GPL-2.0
/*
 * mmb KUnit helpers: an Ethernet netdev registered for the test, frames
 * built the way a driver hands them to the stack, and injection through
 * the real receive path.
 */
#include <linux/etherdevice.h>
#include <linux/if_arp.h>
#include <linux/inetdevice.h>
#include <linux/ip.h>
#include <linux/rtnetlink.h>
#include <linux/udp.h>
#include <linux/vmalloc.h>
#include <net/arp.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/route.h>
#include <net/ndisc.h>
#include <net/neighbour.h>

#include "../kmod/mmb.h"
#include "../kmod/ruleset.h"
#include "util.h"

static netdev_tx_t mmbt_xmit(struct sk_buff *skb, struct net_device *dev)
{
	dev_kfree_skb(skb);
	return NETDEV_TX_OK;
}

static const struct net_device_ops mmbt_netdev_ops = {
	.ndo_start_xmit = mmbt_xmit,
};

/* An Ethernet device whose transmit frees what it is given. */
void mmbt_setup(struct net_device *dev)
{
	ether_setup(dev);
	dev->netdev_ops = &mmbt_netdev_ops;
	eth_hw_addr_random(dev);
}

static struct net_device *mmbt_netdev_new(struct kunit *test, const char *name,
					  void (*setup)(struct net_device *))
{
	struct net_device *dev;

	dev = alloc_netdev(0, name, NET_NAME_UNKNOWN, setup);
	KUNIT_ASSERT_NOT_NULL(test, dev);
	KUNIT_ASSERT_EQ(test, register_netdev(dev), 0);
	return dev;
}

struct net_device *mmbt_netdev_create(struct kunit *test)
{
	return mmbt_netdev_new(test, "mmbt%d", mmbt_setup);
}

/* mmbt_netdev_create()'s device, up (not enabled). */
struct net_device *mmbt_netdev_create_up(struct kunit *test)
{
	struct net_device *dev = mmbt_netdev_create(test);
	int err;

	rtnl_lock();
	err = dev_open(dev, NULL);
	rtnl_unlock();
	KUNIT_ASSERT_EQ(test, err, 0);
	return dev;
}

/* A device without a link-layer header, as tun, WireGuard, IP tunnels. */
static void mmbt_setup_l3(struct net_device *dev)
{
	dev->netdev_ops = &mmbt_netdev_ops;
	dev->type = ARPHRD_NONE;
	dev->flags = IFF_POINTOPOINT | IFF_NOARP;
	dev->mtu = ETH_DATA_LEN;
}

struct net_device *mmbt_netdev_create_l3(struct kunit *test)
{
	return mmbt_netdev_new(test, "mmbl3%d", mmbt_setup_l3);
}

/* --- a capturing device ------------------------------------------------- */

static void mmbt_capture(struct mmbt_capture *c, const struct sk_buff *skb)
{
	c->n++;
	c->len = min_t(unsigned int, skb->len, sizeof(c->buf));
	if (skb_copy_bits(skb, 0, c->buf, c->len))
		c->len = 0;
}

static netdev_tx_t mmbt_cap_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct mmbt_capdev *cd = *(struct mmbt_capdev **)netdev_priv(dev);

	mmbt_capture(&cd->sent, skb);
	dev_kfree_skb(skb);
	return NETDEV_TX_OK;
}

static const struct net_device_ops mmbt_cap_ops = {
	.ndo_start_xmit = mmbt_cap_xmit,
};

static void mmbt_cap_setup(struct net_device *dev)
{
	ether_setup(dev);
	dev->netdev_ops = &mmbt_cap_ops;
	/* No queue: a frame reaches mmbt_cap_xmit() as dev_queue_xmit() returns. */
	dev->tx_queue_len = 0;
	dev->priv_flags |= IFF_NO_QUEUE;
	eth_hw_addr_random(dev);
}

static int mmbt_cap_rcv(struct sk_buff *skb, struct net_device *dev, struct packet_type *pt,
			struct net_device *orig)
{
	struct mmbt_capdev *cd = *(struct mmbt_capdev **)netdev_priv(dev);

	mmbt_capture(&cd->got, skb);
	kfree_skb(skb);
	return NET_RX_SUCCESS;
}

static void mmbt_capdev_free(void *data)
{
	struct mmbt_capdev *cd = data;

	dev_remove_pack(&cd->pt4);
	dev_remove_pack(&cd->pt6);
	unregister_netdev(cd->dev);
	free_netdev(cd->dev);
}

/*
 * A device of the test's own called @name ("mmbc%d": the next free one),
 * up and enabled, that keeps what it transmits (@sent) and the IPv4 and
 * IPv6 packets the stack receives from it (@got: what passed mmb's hook).
 * It goes at the test's end, after what the test registers later.
 */
struct mmbt_capdev *mmbt_capdev_new(struct kunit *test, const char *name)
{
	struct mmbt_capdev *cd = kunit_kzalloc(test, sizeof(*cd), GFP_KERNEL);
	int err;

	KUNIT_ASSERT_NOT_NULL(test, cd);
	cd->dev = alloc_netdev(sizeof(cd), name, NET_NAME_UNKNOWN, mmbt_cap_setup);
	KUNIT_ASSERT_NOT_NULL(test, cd->dev);
	*(struct mmbt_capdev **)netdev_priv(cd->dev) = cd;
	err = register_netdev(cd->dev);
	if (err)
		free_netdev(cd->dev);
	KUNIT_ASSERT_EQ(test, err, 0);
	cd->pt4.dev = cd->dev;
	cd->pt4.type = htons(ETH_P_IP);
	cd->pt4.func = mmbt_cap_rcv;
	cd->pt6 = cd->pt4;
	cd->pt6.type = htons(ETH_P_IPV6);
	dev_add_pack(&cd->pt4);
	dev_add_pack(&cd->pt6);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, mmbt_capdev_free, cd), 0);
	rtnl_lock();
	err = dev_open(cd->dev, NULL);
	if (!err)
		err = mmb_dev_enable(cd->dev, NULL);
	rtnl_unlock();
	KUNIT_ASSERT_EQ(test, err, 0);
	return cd;
}

/* Whether mmb is enabled on @dev. */
bool mmbt_enabled(struct net_device *dev)
{
	bool on;

	rtnl_lock();
	on = mmb_dev_get_rtnl(dev);
	rtnl_unlock();
	return on;
}

void mmbt_netdev_destroy(struct net_device *dev)
{
	unregister_netdev(dev);
	free_netdev(dev);
}

/* A new network namespace, with a test device (*@dev) moved into it. */
struct net *mmbt_netns_new(struct kunit *test, struct net_device **dev)
{
	struct net *net = copy_net_ns(CLONE_NEWNET, &init_user_ns, &init_net);
	int err;

	KUNIT_ASSERT_FALSE(test, IS_ERR(net));
	*dev = mmbt_netdev_create(test);
	rtnl_lock();
	err = dev_change_net_namespace(*dev, net, "mmbf%d");
	rtnl_unlock();
	KUNIT_ASSERT_EQ(test, err, 0);
	return net;
}

/* The device leaves, and so does the namespace, with what it holds. */
void mmbt_netns_done(struct kunit *test, struct net *net, struct net_device *dev)
{
	int err;

	rtnl_lock();
	err = dev_change_net_namespace(dev, &init_net, "mmbt%d");
	rtnl_unlock();
	KUNIT_EXPECT_EQ(test, err, 0);
	put_net(net);
	mmbt_netdev_destroy(dev);
}

/* An Ethernet + IPv4 + UDP frame to @dev, data pointing at L3 after eth_type_trans(). */
struct sk_buff *mmbt_skb_udp4(struct net_device *dev, unsigned int payload)
{
	unsigned int l3len = sizeof(struct iphdr) + sizeof(struct udphdr) + payload;
	struct sk_buff *skb;
	struct ethhdr *eth;
	struct udphdr *uh;
	struct iphdr *iph;

	skb = alloc_skb(NET_IP_ALIGN + ETH_HLEN + l3len, GFP_KERNEL);
	if (!skb)
		return NULL;
	skb_reserve(skb, NET_IP_ALIGN);
	eth = skb_put_zero(skb, ETH_HLEN);
	ether_addr_copy(eth->h_dest, dev->dev_addr);
	eth->h_source[5] = 1;
	eth->h_proto = htons(ETH_P_IP);

	iph = skb_put_zero(skb, sizeof(*iph));
	iph->version = 4;
	iph->ihl = 5;
	iph->ttl = 64;
	iph->protocol = IPPROTO_UDP;
	iph->tot_len = htons(l3len);
	iph->saddr = htonl(0xc0000201);		/* 192.0.2.1 */
	iph->daddr = htonl(0xc6336402);		/* 198.51.100.2 */
	ip_send_check(iph);

	uh = skb_put_zero(skb, sizeof(*uh) + payload);
	uh->source = htons(40000);
	uh->dest = htons(53);
	uh->len = htons(sizeof(*uh) + payload);

	skb->dev = dev;
	skb->protocol = eth_type_trans(skb, dev);
	return skb;
}

/*
 * Give a packet of mmbt_pkt_build() (network header at data, Ethernet's
 * room before it) an Ethernet header to @dev, as a driver hands it over.
 */
struct sk_buff *mmbt_frame(struct net_device *dev, struct sk_buff *skb)
{
	__be16 proto = skb->protocol;
	struct ethhdr *eth;

	eth = skb_push(skb, ETH_HLEN);
	memset(eth, 0, ETH_HLEN);
	ether_addr_copy(eth->h_dest, dev->dev_addr);
	eth->h_source[5] = 1;
	eth->h_proto = proto;
	skb->dev = dev;
	skb->protocol = eth_type_trans(skb, dev);
	return skb;
}

void mmbt_receive(struct sk_buff *skb)
{
	local_bh_disable();
	netif_receive_skb(skb);
	local_bh_enable();
}

/* Rules a test owns, as a namespace owns its own; freed at the test's end. */
static void mmbt_rules_free(void *r)
{
	mmb_rules_exit(r);
	kfree(r);
}

struct mmb_rules *mmbt_rules_new(struct kunit *test)
{
	struct mmb_rules *r = kzalloc(sizeof(*r), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_ASSERT_EQ(test, mmb_rules_init(r), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, mmbt_rules_free, r), 0);
	return r;
}

/* Free @r now rather than at the test's end. */
void mmbt_rules_done(struct kunit *test, struct mmb_rules *r)
{
	kunit_release_action(test, mmbt_rules_free, r);
}

/* The ruleset of @r; one ruleset for as long as changes are made in place. */
struct mmb_ruleset *mmbt_rs(struct mmb_rules *r)
{
	struct mmb_ruleset *rs;

	mmb_rules_lock(r);
	rs = mmb_rules_locked(r);
	mmb_rules_unlock(r);
	return rs;
}

/* Add @rule in place, as a single add does: it gets the next handle. */
int mmbt_insert(struct mmb_rules *r, struct mmb_rule *rule, const struct mmb_rule_image *img)
{
	struct mmb_txn txn;
	int err;

	err = mmb_txn_begin(r, &txn, MMB_TXN_INPLACE);
	if (err)
		return err;
	err = mmb_txn_add(&txn, rule, img);
	if (err)
		mmb_txn_abort(&txn);
	else
		mmb_txn_commit(&txn);
	return err;
}

/* Add to @r a rule of @n matches and one @target (always), stateful or not. */
static struct mmb_rule *mmbt_rule_put(struct kunit *test, struct mmb_rules *r, bool stateful,
				      u8 target, const struct mmb_match_spec *m, unsigned int n,
				      bool offload)
{
	struct mmb_rule_spec *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	struct mmb_rule *rule;

	KUNIT_ASSERT_NOT_NULL(test, s);
	memcpy(s->m, m, n * sizeof(*m));
	s->nmatches = n;
	s->ntargets = 1;
	s->t[0].type = target;
	s->t[0].rate = MMB_RATE_ALWAYS;
	s->stateful = stateful;
	s->offload = offload;
	rule = mmb_rule_create(s, NULL, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(rule));
	KUNIT_ASSERT_EQ(test, mmbt_insert(r, rule, NULL), 0);
	return rule;
}

struct mmb_rule *mmbt_rule_add(struct kunit *test, struct mmb_rules *r, bool stateful, u8 target,
			       const struct mmb_match_spec *m, unsigned int n)
{
	return mmbt_rule_put(test, r, stateful, target, m, n, false);
}

/* add-stateful MATCHES accept [offload], inserted into @r. */
struct mmb_rule *mmbt_rule_add_accept(struct kunit *test, struct mmb_rules *r,
				      const struct mmb_match_spec *m, unsigned int n,
				      bool offload)
{
	return mmbt_rule_put(test, r, true, MMB_TARGET_ACCEPT, m, n, offload);
}

/*
 * A rule of MATCHES TARGETS (stateful: add-stateful), created, not
 * inserted: the caller's to insert or to free.
 */
struct mmb_rule *mmbt_rule_make(struct kunit *test, bool stateful,
				const struct mmb_match_spec *m, unsigned int nm,
				const struct mmbt_target *t, unsigned int nt)
{
	struct mmb_rule_spec *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	struct mmb_rule_err err = {};
	struct mmb_rule *rule;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, s);
	memcpy(s->m, m, nm * sizeof(*m));
	s->nmatches = nm;
	s->ntargets = nt;
	s->stateful = stateful;
	for (i = 0; i < nt; i++) {
		s->t[i].type = t[i].type;
		s->t[i].field = t[i].field;
		s->t[i].vlen = t[i].vlen;
		s->t[i].plen = t[i].plen ?: mmb_field(t[i].field)->bits;
		s->t[i].kind = t[i].kind;
		s->t[i].invert = t[i].invert;
		s->t[i].rate = MMB_RATE_ALWAYS;
		memcpy(s->t[i].value, t[i].value, t[i].vlen);
	}
	rule = mmb_rule_create(s, NULL, &err);
	if (IS_ERR(rule))
		KUNIT_FAIL(test, "rule refused: %s", err.msg);
	KUNIT_ASSERT_FALSE(test, IS_ERR(rule));
	return rule;
}

/* add[-stateful] MATCHES TARGETS, a rule with targets that carry values */
struct mmb_rule *mmbt_rule_targets(struct kunit *test, struct mmb_rules *r, bool stateful,
				   const struct mmb_match_spec *m, unsigned int nm,
				   const struct mmbt_target *t, unsigned int nt)
{
	struct mmb_rule *rule = mmbt_rule_make(test, stateful, m, nm, t, nt);

	KUNIT_ASSERT_EQ(test, mmbt_insert(r, rule, NULL), 0);
	return rule;
}

/* Delete @rule in place, as a single del does. */
int mmbt_remove(struct mmb_rules *r, const struct mmb_rule *rule)
{
	struct mmb_txn txn;
	int err;

	err = mmb_txn_begin(r, &txn, MMB_TXN_INPLACE);
	if (err)
		return err;
	err = mmb_txn_del(&txn, rule->handle);
	if (err)
		mmb_txn_abort(&txn);
	else
		mmb_txn_commit(&txn);
	return err;
}

int mmbt_table(struct mmb_rules *r, unsigned int index, struct mmb_table_info *info)
{
	int err;

	mmb_rules_lock(r);
	err = mmb_ruleset_table(mmb_rules_locked(r), index, info);
	mmb_rules_unlock(r);
	return err;
}

static void mmbt_vfree(void *p)
{
	vfree(p);
}

/* Zeroed memory too large for kmalloc, freed when @test ends. */
void *mmbt_vzalloc(struct kunit *test, size_t size)
{
	void *p = vzalloc(size);

	if (p && kunit_add_action_or_reset(test, mmbt_vfree, p))
		return NULL;
	return p;
}

/* A match of @field @op @v (a number, right-aligned in the field's bytes). */
struct mmb_match_spec mmbt_match(u16 field, u8 op, u32 v)
{
	const struct mmb_field_info *f = mmb_field(field);
	struct mmb_match_spec m = { .field = field, .op = op, .plen = f->bits };
	int i;

	m.vlen = field == MMB_FIELD_ALL ? 0 : mmb_field_size(f->bits);
	for (i = m.vlen - 1; i >= 0; i--, v >>= 8)
		m.value[i] = v & 0xff;
	return m;
}

/*
 * The naive reference of the differential tests: a rule matches when each
 * of its matches holds, evaluated one by one.
 */
bool mmbt_spec_matches(const struct mmb_rule_spec *s, const struct mmb_pkt *pkt,
		       const struct sk_buff *skb)
{
	unsigned int i;

	for (i = 0; i < s->nmatches; i++)
		if (!mmb_match_eval(&s->m[i], pkt, skb))
			return false;
	return true;
}

/* "in @name" (or "in != @name"), as netlink gives it. */
struct mmb_match_spec mmbt_match_in(u8 op, const char *name)
{
	struct mmb_match_spec m = { .field = MMB_FIELD_IN, .op = op, .plen = 32,
				    .vlen = MMB_IN_VLEN };

	strscpy((char *)m.value + 4, name, IFNAMSIZ);
	return m;
}

/* The CPU's time stamp counter, for the benchmarks; 0 where there is none. */
u64 mmbt_tsc(void)
{
#if defined(CONFIG_X86_64) || defined(CONFIG_UML_X86)
	u32 lo, hi;

	asm volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (u64)hi << 32 | lo;
#else
	return 0;
#endif
}

static void mmbt_conn_cap_restore(void *old)
{
	WRITE_ONCE(mmb_conn_max_total, (unsigned int)(uintptr_t)old);
}

/* The module's cap on connections (conn_max_total) at @n until @test ends. */
void mmbt_conn_cap(struct kunit *test, unsigned int n)
{
	uintptr_t old = READ_ONCE(mmb_conn_max_total);

	WRITE_ONCE(mmb_conn_max_total, n);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, mmbt_conn_cap_restore,
							(void *)old), 0);
}

/*
 * The rx_handler's steps on @skb (parse, connection, rules, connection
 * verdict), without a device: 1 if it passes, 0 if dropped, a negative
 * errno if the hook would drop it for that. Consumes @skb.
 */
int mmbt_judge(struct mmb_rules *r, struct mmb_conns *mc, struct sk_buff *skb)
{
	const struct mmb_ruleset *rs;
	struct mmb_verdict v;
	struct mmb_pkt pkt;
	int ret;

	rcu_read_lock();
	local_bh_disable();
	rs = mmb_rules_get(r);
	ret = mmb_parse(skb, &pkt);
	if (!ret) {
		mmb_verdict_init(&v);
		if (mmb_ruleset_stateful(rs))
			mmb_conn_lookup(mc, &pkt, skb, &v);
		mmb_classify_rules(rs, &pkt, skb, &v);
		if (v.conn || v.nsf)
			ret = mmb_conn_verdict(mc, &pkt, skb, &v);
		if (!ret)
			ret = !(v.drop && !v.accept);
	}
	local_bh_enable();
	rcu_read_unlock();
	kfree_skb(skb);
	return ret;
}

/*
 * @nlh, an rtnetlink request ("ip route", "ip addr"), sent in @net as
 * iproute2 sends it: the error its answer carries (0: done).
 */
int mmbt_rtnl(struct kunit *test, struct net *net, struct nlmsghdr *nlh)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct msghdr msg = {};
	struct nlmsghdr *ans;
	struct socket *sock;
	struct kvec iov;
	u8 *rx;
	int n;

	rx = kunit_kzalloc(test, 1024, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rx);
	KUNIT_ASSERT_EQ(test, sock_create_kern(net, AF_NETLINK, SOCK_RAW, NETLINK_ROUTE, &sock), 0);
	nlh->nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = 1;
	msg.msg_name = &sa;
	msg.msg_namelen = sizeof(sa);
	iov.iov_base = nlh;
	iov.iov_len = nlh->nlmsg_len;
	n = kernel_sendmsg(sock, &msg, &iov, 1, nlh->nlmsg_len);
	if (n == nlh->nlmsg_len) {
		memset(&msg, 0, sizeof(msg));
		iov.iov_base = rx;
		iov.iov_len = 1024;
		n = kernel_recvmsg(sock, &msg, &iov, 1, 1024, 0);
	} else {
		n = -EIO;
	}
	sock_release(sock);
	KUNIT_ASSERT_GT(test, n, 0);
	ans = (struct nlmsghdr *)rx;
	KUNIT_ASSERT_EQ(test, ans->nlmsg_type, NLMSG_ERROR);
	return ((struct nlmsgerr *)nlmsg_data(ans))->error;
}

/* Attribute @type of @len bytes at the end of @nlh (the caller has room for it). */
void mmbt_rtnl_put(struct nlmsghdr *nlh, u16 type, const void *data, unsigned int len)
{
	struct nlattr *a = (struct nlattr *)((u8 *)nlh + NLMSG_ALIGN(nlh->nlmsg_len));

	a->nla_type = type;
	a->nla_len = nla_attr_size(len);
	memcpy(nla_data(a), data, len);
	nlh->nlmsg_len = NLMSG_ALIGN(nlh->nlmsg_len) + nla_total_size(len);
}

/*
 * "ip route add @dst/@plen dev @dev" (@dev NULL: a route of @type, such as
 * a blackhole, in @net), or "ip route del" with @del.
 */
void mmbt_route(struct kunit *test, struct net *net, struct net_device *dev, bool v6,
		const u8 *dst, u8 plen, u8 type, bool del)
{
	mmbt_route_tos(test, net, dev, v6, dst, plen, 0, type, del);
}

/* The same, with a TOS selector: "ip route add @dst/@plen tos @tos ...". */
void mmbt_route_tos(struct kunit *test, struct net *net, struct net_device *dev, bool v6,
		    const u8 *dst, u8 plen, u8 tos, u8 type, bool del)
{
	struct {
		struct nlmsghdr nlh;
		struct rtmsg rtm;
		u8 attrs[64];
	} req = {};

	req.nlh.nlmsg_len = NLMSG_LENGTH(sizeof(req.rtm));
	req.nlh.nlmsg_type = del ? RTM_DELROUTE : RTM_NEWROUTE;
	req.nlh.nlmsg_flags = del ? 0 : NLM_F_CREATE | NLM_F_EXCL;
	req.rtm.rtm_family = v6 ? AF_INET6 : AF_INET;
	req.rtm.rtm_dst_len = plen;
	req.rtm.rtm_tos = tos;
	req.rtm.rtm_table = RT_TABLE_MAIN;
	req.rtm.rtm_protocol = RTPROT_STATIC;
	req.rtm.rtm_scope = dev ? RT_SCOPE_LINK : RT_SCOPE_UNIVERSE;
	req.rtm.rtm_type = type;
	mmbt_rtnl_put(&req.nlh, RTA_DST, dst, v6 ? 16 : 4);
	if (dev)
		mmbt_rtnl_put(&req.nlh, RTA_OIF, &dev->ifindex, 4);
	KUNIT_ASSERT_EQ(test, mmbt_rtnl(test, net, &req.nlh), 0);
}

/* "ip addr add @addr/@plen dev @dev" (IPv6: nodad), or "ip addr del" with @del. */
void mmbt_addr(struct kunit *test, struct net_device *dev, bool v6, const u8 *addr, u8 plen,
	       bool del)
{
	struct {
		struct nlmsghdr nlh;
		struct ifaddrmsg ifa;
		u8 attrs[64];
	} req = {};
	unsigned int alen = v6 ? 16 : 4;

	req.nlh.nlmsg_len = NLMSG_LENGTH(sizeof(req.ifa));
	req.nlh.nlmsg_type = del ? RTM_DELADDR : RTM_NEWADDR;
	req.nlh.nlmsg_flags = del ? 0 : NLM_F_CREATE | NLM_F_EXCL;
	req.ifa.ifa_family = v6 ? AF_INET6 : AF_INET;
	req.ifa.ifa_prefixlen = plen;
	req.ifa.ifa_flags = v6 ? IFA_F_NODAD : 0;
	req.ifa.ifa_scope = RT_SCOPE_UNIVERSE;
	req.ifa.ifa_index = dev->ifindex;
	mmbt_rtnl_put(&req.nlh, IFA_LOCAL, addr, alen);
	mmbt_rtnl_put(&req.nlh, IFA_ADDRESS, addr, alen);
	KUNIT_ASSERT_EQ(test, mmbt_rtnl(test, dev_net(dev), &req.nlh), 0);
}

/*
 * @addr a permanent neighbour of @dev at @mac, its link header cached (as
 * the first packet the stack sends to it caches it).
 */
void mmbt_neigh(struct kunit *test, struct net_device *dev, bool v6, const u8 *addr,
		const u8 *mac)
{
	struct neigh_table *tbl = &arp_tbl;
	struct neighbour *n;
	struct sk_buff *skb;

#if IS_ENABLED(CONFIG_IPV6)
	if (v6)
		tbl = &nd_tbl;
#endif
	n = __neigh_create(tbl, addr, dev, true);
	KUNIT_ASSERT_FALSE(test, IS_ERR(n));
	KUNIT_ASSERT_EQ(test, neigh_update(n, mac, NUD_PERMANENT,
					   NEIGH_UPDATE_F_OVERRIDE | NEIGH_UPDATE_F_ADMIN, 0), 0);
	skb = alloc_skb(LL_RESERVED_SPACE(dev) + 64, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	skb_reserve(skb, LL_RESERVED_SPACE(dev));
	skb_put_zero(skb, 64);
	skb_reset_network_header(skb);
	skb->protocol = htons(v6 ? ETH_P_IPV6 : ETH_P_IP);
	skb->dev = dev;
	rcu_read_lock();
	local_bh_disable();
	neigh_resolve_output(n, skb);
	local_bh_enable();
	rcu_read_unlock();
	KUNIT_ASSERT_GT(test, READ_ONCE(n->hh.hh_len), 0);
	neigh_release(n);
}

/*
 * IPv4 forwarding on @dev's way in, or off (@on); with @v6, IPv6
 * forwarding in @dev's namespace as well (its "all" setting). As the
 * sysctls do: routes looked up before may not serve.
 */
void mmbt_forwarding(struct net_device *dev, bool on, bool v6)
{
	struct in_device *in;

	rtnl_lock();
	in = __in_dev_get_rtnl(dev);
	if (in)
		IN_DEV_CONF_SET(in, FORWARDING, on);
	if (v6)
		WRITE_ONCE(dev_net(dev)->ipv6.devconf_all->forwarding, on);
	rtnl_unlock();
	rt_cache_flush(dev_net(dev));
}
