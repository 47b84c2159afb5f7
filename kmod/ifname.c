// SPDX-License-Identifier: GPL-2.0
/*
 * mmb: interface names. Rules match the name of the device a packet
 * arrives on ("in"), and a name is a string, which the datapath does not
 * compare: every name that a rule or an attached device uses is interned
 * here into a number, its id, and the header image holds the id of the
 * device's name (mmb_dev_ifid()), a rule's key the id of the name it
 * gives. The same name has the same id while anything uses it; ids are
 * handed out in sequence, so one that is freed is not given to another
 * name again (before 2^32 more), and past the wrap an id that a name
 * still holds is skipped: two names never share one. The table is the
 * module's, not a namespace's: two namespaces that use one name share its
 * id, which is harmless, as a namespace's packets only meet its own rules.
 *
 * Also the rules of what a name, or a pattern (a trailing '*'), may be.
 */
#include <linux/ctype.h>
#include <linux/hashtable.h>
#include <linux/slab.h>
#include <linux/stringhash.h>

#include "mmb.h"

struct mmb_ifname {
	struct hlist_node node;
	struct hlist_node id_node;	/* in mmb_ifids */
	u32 id;
	unsigned int ref;		/* rules' matches and attached devices */
	char name[IFNAMSIZ];
};

/* Rules are freed after a grace period, in softirq: a _bh lock. */
static DEFINE_SPINLOCK(mmb_ifname_lock);
static DEFINE_HASHTABLE(mmb_ifnames, 8);
static DEFINE_HASHTABLE(mmb_ifids, 8);
/* The last id handed out; the KUnit suites move it to the wrap. */
u32 mmb_ifname_next;

static u32 mmb_ifname_hash(const char *name)
{
	return full_name_hash(NULL, name, strnlen(name, IFNAMSIZ));
}

static struct mmb_ifname *mmb_ifname_lookup(const char *name, u32 hash)
{
	struct mmb_ifname *e;

	lockdep_assert_held(&mmb_ifname_lock);
	hash_for_each_possible(mmb_ifnames, e, node, hash)
		if (!strncmp(e->name, name, IFNAMSIZ))
			return e;
	return NULL;
}

/* Does a name hold @id? */
static bool mmb_ifid_used(u32 id)
{
	struct mmb_ifname *e;

	lockdep_assert_held(&mmb_ifname_lock);
	hash_for_each_possible(mmb_ifids, e, id_node, id)
		if (e->id == id)
			return true;
	return false;
}

/* The next id in sequence that no name holds (not 0). */
static u32 mmb_ifid_next(void)
{
	do
		mmb_ifname_next = mmb_ifname_next + 1 ?: 1;
	while (mmb_ifid_used(mmb_ifname_next));
	return mmb_ifname_next;
}

/* The id of @name, with a reference; 0 if there is no memory for it. */
u32 mmb_ifname_get(const char *name)
{
	u32 hash = mmb_ifname_hash(name), id;
	struct mmb_ifname *e, *fresh;

	fresh = kzalloc(sizeof(*fresh), GFP_KERNEL_ACCOUNT);
	spin_lock_bh(&mmb_ifname_lock);
	e = mmb_ifname_lookup(name, hash);
	if (!e && fresh) {
		e = fresh;
		fresh = NULL;
		strscpy(e->name, name, IFNAMSIZ);
		e->id = mmb_ifid_next();
		hash_add(mmb_ifnames, &e->node, hash);
		hash_add(mmb_ifids, &e->id_node, e->id);
	}
	if (e)
		e->ref++;
	id = e ? e->id : 0;
	spin_unlock_bh(&mmb_ifname_lock);
	kfree(fresh);
	return id;
}

/* Drop a reference that mmb_ifname_get() gave for @name; any context. */
void mmb_ifname_put(const char *name)
{
	struct mmb_ifname *e;

	spin_lock_bh(&mmb_ifname_lock);
	e = mmb_ifname_lookup(name, mmb_ifname_hash(name));
	if (!WARN_ON_ONCE(!e) && !--e->ref) {
		hash_del(&e->node);
		hash_del(&e->id_node);
		kfree(e);
	}
	spin_unlock_bh(&mmb_ifname_lock);
}

/* The id of @name if anything uses it, else 0 (no reference taken). */
u32 mmb_ifname_find(const char *name)
{
	struct mmb_ifname *e;
	u32 id;

	spin_lock_bh(&mmb_ifname_lock);
	e = mmb_ifname_lookup(name, mmb_ifname_hash(name));
	id = e ? e->id : 0;
	spin_unlock_bh(&mmb_ifname_lock);
	return id;
}

/* Names interned: none once every rule and device let go (tests). */
unsigned int mmb_ifname_count(void)
{
	struct mmb_ifname *e;
	unsigned int n = 0, bkt;

	spin_lock_bh(&mmb_ifname_lock);
	hash_for_each(mmb_ifnames, bkt, e, node)
		n++;
	spin_unlock_bh(&mmb_ifname_lock);
	return n;
}

/*
 * Is @s (at most IFNAMSIZ bytes, NUL-terminated within them) a name that
 * mmb takes, or with @pattern a name or a pattern? NULL if so, else why
 * not. A name is what the kernel would give a device (dev_valid_name()):
 * 1 to IFNAMSIZ - 1 bytes, not "." or "..", no '/', ':' or white space;
 * a pattern is such a name, or nothing, followed by a '*'. A '*' before
 * the end is refused, in names too: it would read as a pattern that is
 * not one.
 */
const char *mmb_ifname_invalid(const char *s, bool pattern)
{
	size_t len = strnlen(s, IFNAMSIZ), i;

	if (!len)
		return "an interface name is not empty";
	if (len >= IFNAMSIZ)
		return "an interface name is at most 15 bytes";
	if (!strcmp(s, ".") || !strcmp(s, ".."))
		return "\".\" and \"..\" are not interface names";
	for (i = 0; i < len; i++) {
		if (s[i] == '/' || s[i] == ':' || isspace(s[i]))
			return "an interface name has no '/', ':' or white space";
		if (s[i] == '*' && (!pattern || i != len - 1))
			return pattern ? "a '*' may only end a pattern" :
					 "a rule names one interface: no '*' pattern";
	}
	return NULL;
}

bool mmb_ifname_is_pattern(const char *pat)
{
	size_t len = strnlen(pat, IFNAMSIZ);

	return len && pat[len - 1] == '*';
}

/* Does the name or pattern @pat stand for the device name @name? */
bool mmb_ifname_matches(const char *pat, const char *name)
{
	size_t len = strnlen(pat, IFNAMSIZ);

	if (mmb_ifname_is_pattern(pat))
		return !strncmp(pat, name, len - 1);
	return !strncmp(pat, name, IFNAMSIZ);
}
