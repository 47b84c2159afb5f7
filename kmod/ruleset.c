// SPDX-License-Identifier: GPL-2.0
/*
 * mmb: the owner of a namespace's rules (ruleset.h). Transactions, handle
 * allocation, generations, publication, and freeing in the one order the
 * flow cache needs (tables.h, "The order of changes"): all here.
 *
 *   mmb_rules ── cur: the live ruleset ── masks, rules (handle -> rule)
 *       │                ▲ rcu_assign_pointer() at commit (aside)
 *       └── txn: in place (one change to cur), or aside (a new ruleset)
 */
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/sort.h>

#include "tables.h"
#include "test.h"

/* Off: tables as the rules came (to measure what the rebuild gains). */
static bool mmb_merge_rebuild = true;
module_param_named(merge_rebuild, mmb_merge_rebuild, bool, 0644);
MODULE_PARM_DESC(merge_rebuild,
		 "Build a batch's tables again at commit, widest masks first (default on)");

/*
 * Free @head with @free once no reader can see it. For a live ruleset that
 * waits for mmb_ruleset_changed(), which hands it to call_rcu() after it
 * told the flow cache; no reader sees a ruleset that is not live.
 */
void mmb_retire(struct mmb_ruleset *rs, struct rcu_head *head, rcu_callback_t free)
{
	if (!rs->live) {
		free(head);
		return;
	}
	head->func = free;
	head->next = rs->retired;
	rs->retired = head;
}

/*
 * Publish that the ruleset changed, after the change itself, then free
 * what the change retired: in this order a packet never takes a flow cache
 * entry that names a freed object.
 */
void mmb_ruleset_changed(struct mmb_ruleset *rs)
{
	struct rcu_head *head = rs->retired, *next;

	/* Pairs with mmb_classify(): who sees the new gen sees the change. */
	smp_store_release(&rs->gen, rs->gen + 1);
	rs->retired = NULL;
	if (head)
		mmb_test_free(rs);
	for (; head; head = next) {
		next = head->next;
		call_rcu(head, head->func);
	}
}

/*
 * A ruleset a commit replaced is freed by a worker a grace period later:
 * waiting for one in the commit would cost every transaction that
 * replaces the rules (-f, flush) a grace period, several milliseconds on
 * a busy machine. At most MMB_RETIRING_MAX wait at once (module-wide), so
 * that a loop of reloads keeps its memory bounded; past that, and where
 * the connections of ended rules must be swept after the grace period,
 * the commit waits as before.
 */
#define MMB_RETIRING_MAX 8

static struct workqueue_struct *mmb_retire_wq;
static atomic_t mmb_retiring = ATOMIC_INIT(0);

static void mmb_ruleset_destroy(struct mmb_ruleset *rs);

static void mmb_ruleset_free_work(struct work_struct *work)
{
	struct mmb_ruleset *rs = container_of(to_rcu_work(work), struct mmb_ruleset,
					      free_work);

	mmb_ruleset_destroy(rs);
	atomic_dec(&mmb_retiring);
}

int __init mmb_rules_module_init(void)
{
	mmb_retire_wq = alloc_workqueue("mmb_retire", WQ_UNBOUND, 0);
	return mmb_retire_wq ? 0 : -ENOMEM;
}

/* After the last commit: rcu_barrier(), then this waits for the workers. */
void mmb_rules_module_exit(void)
{
	destroy_workqueue(mmb_retire_wq);
}

/* A new ruleset, whose writers will hold @lock once it is live. */
static struct mmb_ruleset *mmb_ruleset_create(struct mutex *lock)
{
	struct mmb_ruleset *rs = kzalloc(sizeof(*rs), GFP_KERNEL_ACCOUNT);

	if (rs) {
		rs->lock = lock;
		xa_init(&rs->rules);
		rs->gen = 1;
	}
	return rs;
}

/*
 * Before @rs is published in place of @prev (or of nothing): from now on,
 * readers may see it. Its generation follows @prev's, so that a dump that
 * spans the swap sees the generation change.
 */
static void mmb_ruleset_live(struct mmb_ruleset *rs, const struct mmb_ruleset *prev)
{
	if (prev)
		rs->gen = prev->gen + 1;
	rs->live = true;
}

/* Free a ruleset no reader can see any more (or ever saw). */
static void mmb_ruleset_destroy(struct mmb_ruleset *rs)
{
	struct mmb_rule *rule;
	unsigned long handle;

	WARN_ON_ONCE(rs->retired);
	rs->live = false;	/* a grace period after its last reader */
	mmb_tables_destroy(rs);
	xa_for_each(&rs->rules, handle, rule) {
		mmb_rule_put(rule);
		if (!(handle & 1023))
			cond_resched();
	}
	xa_destroy(&rs->rules);
	mmb_cache_free(rs->cache);
	kfree(rs);
}

/*
 * The counters of @rs's meters summed into @evicted and @full (its owner's
 * lock held); false if no rule of it has a meter.
 */
bool mmb_ruleset_meter_counts(struct mmb_ruleset *rs, u64 *evicted, u64 *full)
{
	const struct mmb_rule *rule;
	unsigned long handle;
	bool any = false;
	u64 e, f;

	*evicted = 0;
	*full = 0;
	xa_for_each(&rs->rules, handle, rule) {
		if (!rule->limit || !rule->limit->spec.meter)
			continue;
		mmb_limit_counts(rule->limit, &e, &f);
		*evicted += e;
		*full += f;
		any = true;
	}
	return any;
}

/* Insert @rule, whose mask and key (mmb_rule_key()) @img holds. */
static int mmb_ruleset_insert(struct mmb_ruleset *rs, struct mmb_rule *rule,
			      const struct mmb_rule_image *img)
{
	int err;

	err = xa_insert(&rs->rules, rule->handle, rule, GFP_KERNEL_ACCOUNT);
	if (err)
		return err;
	err = rs->unplaced ? 0 : mmb_tables_insert(rs, rule, img);
	if (err) {
		xa_erase(&rs->rules, rule->handle);
		return err;
	}
	WRITE_ONCE(rs->nrules, rs->nrules + 1);
	if (rule->stateful)
		WRITE_ONCE(rs->nstateful, rs->nstateful + 1);
	if (rule->out)
		WRITE_ONCE(rs->nout, rs->nout + 1);
	if (rule->nat)
		WRITE_ONCE(rs->nnat, rs->nnat + 1);
	if (rule->out && rule->stateful)
		WRITE_ONCE(rs->noutsf, rs->noutsf + 1);
	mmb_ruleset_changed(rs);
	return 0;
}

/*
 * Unpublish @rule and free it after a grace period. Nothing changes if
 * that fails. Allocates, so may sleep; never waits for a grace period.
 */
static int mmb_ruleset_remove(struct mmb_ruleset *rs, struct mmb_rule *rule)
{
	int err = rs->unplaced ? 0 : mmb_tables_remove(rs, rule);

	if (err)
		return err;
	xa_erase(&rs->rules, rule->handle);
	WRITE_ONCE(rs->nrules, rs->nrules - 1);
	if (rule->stateful)
		WRITE_ONCE(rs->nstateful, rs->nstateful - 1);
	if (rule->out)
		WRITE_ONCE(rs->nout, rs->nout - 1);
	if (rule->nat)
		WRITE_ONCE(rs->nnat, rs->nnat - 1);
	if (rule->out && rule->stateful)
		WRITE_ONCE(rs->noutsf, rs->noutsf - 1);
	mmb_ruleset_changed(rs);
	mmb_rule_put(rule);
	return 0;
}

/* A stateful rule a transaction added, by the hash of its content. */
struct mmb_heir {
	u32 hash;
	struct mmb_rule *rule;
};

/* By hash, then by handle: of rules alike, the first added comes first. */
static int mmb_heir_cmp(const void *a, const void *b)
{
	const struct mmb_heir *x = a, *y = b;

	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	return x->rule->handle < y->rule->handle ? -1 : x->rule->handle > y->rule->handle;
}

/*
 * The stateful rules of @rs with handles from @first on, those its
 * transaction added, sorted by content (how many in *@n): what a rule the
 * transaction takes out may live on as. NULL with none; -ENOMEM.
 */
static struct mmb_heir *mmb_ruleset_heirs(struct mmb_ruleset *rs, u32 first, unsigned int *n)
{
	struct mmb_heir *heirs;
	struct mmb_rule *rule;
	unsigned long handle;

	*n = 0;
	if (!rs->nstateful || !first)
		return NULL;
	heirs = kvmalloc_array(rs->nstateful, sizeof(*heirs), GFP_KERNEL_ACCOUNT);
	if (!heirs)
		return ERR_PTR(-ENOMEM);
	xa_for_each_start(&rs->rules, handle, rule, first) {
		if (rule->stateful) {
			heirs[*n].hash = mmb_rule_hash(rule);
			heirs[(*n)++].rule = rule;
		}
		if (!(handle & 1023))
			cond_resched();
	}
	sort(heirs, *n, sizeof(*heirs), mmb_heir_cmp, NULL);
	return heirs;
}

/* The first of @heirs (@n of them) that does what @rule does, or NULL. */
static struct mmb_rule *mmb_heir_find(const struct mmb_heir *heirs, unsigned int n,
				      const struct mmb_rule *rule)
{
	unsigned int lo = 0, hi = n, mid;
	u32 hash;

	if (!n)
		return NULL;
	hash = mmb_rule_hash(rule);
	while (lo < hi) {	/* the first with a hash >= @hash */
		mid = lo + (hi - lo) / 2;
		if (heirs[mid].hash < hash)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < n && heirs[lo].hash == hash; lo++)
		if (mmb_rule_same(heirs[lo].rule, rule))
			return heirs[lo].rule;
	return NULL;
}

/*
 * The stateful rules of @old that @new (NULL: none) does not have are gone
 * from the datapath. One that @new has again, the same rule under another
 * handle (among @heirs, @n of them: a reload), gets that rule as its
 * successor, and its connections go on with it; any other one ends, and
 * so do its connections. How many ended.
 */
static unsigned int mmb_ruleset_bury(struct mmb_ruleset *old, struct mmb_ruleset *new,
				     const struct mmb_heir *heirs, unsigned int n)
{
	struct mmb_rule *rule, *heir;
	unsigned int ended = 0;
	unsigned long handle;

	if (!old->nstateful)
		return 0;
	xa_for_each(&old->rules, handle, rule) {
		if (rule->stateful && (!new || xa_load(&new->rules, handle) != rule)) {
			heir = mmb_heir_find(heirs, n, rule);
			if (heir) {
				mmb_rule_succeed(rule, heir);
			} else {
				WRITE_ONCE(rule->dead, true);
				ended++;
			}
		}
		if (!(handle & 1023))
			cond_resched();
	}
	return ended;
}

/* Put every rule of @from into @to too (an unpublished ruleset). */
static int mmb_ruleset_copy(struct mmb_ruleset *to, struct mmb_ruleset *from)
{
	struct mmb_rule_image img;
	struct mmb_rule *rule;
	unsigned long handle;
	int err;

	xa_for_each(&from->rules, handle, rule) {
		refcount_inc(&rule->ref);
		if (!to->unplaced)
			mmb_rule_key(rule, &img.mask, &img.key);
		err = mmb_ruleset_insert(to, rule, &img);
		if (err) {
			refcount_dec(&rule->ref);
			return err;
		}
		if (!(handle & 1023))
			cond_resched();
	}
	return 0;
}

struct mmb_rule *mmb_ruleset_find(struct mmb_ruleset *rs, u32 handle)
{
	return xa_load(&rs->rules, handle);
}

/* The first rule with a handle >= *handle, which is set to it. */
struct mmb_rule *mmb_ruleset_next(struct mmb_ruleset *rs, u32 *handle)
{
	unsigned long h = *handle;
	struct mmb_rule *rule = xa_find(&rs->rules, &h, U32_MAX, XA_PRESENT);

	*handle = h;
	return rule;
}

/* Readers may call it without the lock. */
unsigned int mmb_ruleset_count(const struct mmb_ruleset *rs)
{
	return READ_ONCE(rs->nrules);
}

/* How many of its rules judge leaving packets; readers may call it without the lock. */
unsigned int mmb_ruleset_out(const struct mmb_ruleset *rs)
{
	return READ_ONCE(rs->nout);
}

/* How many of its rules map connections (NAT); readers may call it without the lock. */
unsigned int mmb_ruleset_nat(const struct mmb_ruleset *rs)
{
	return READ_ONCE(rs->nnat);
}

/* How many of its rules are stateful and leaving; readers may call it without the lock. */
unsigned int mmb_ruleset_outsf(const struct mmb_ruleset *rs)
{
	return READ_ONCE(rs->noutsf);
}

/* How many of its rules are stateful; readers may call it without the lock. */
unsigned int mmb_ruleset_stateful(const struct mmb_ruleset *rs)
{
	return READ_ONCE(rs->nstateful);
}

/* The generation of @rs: a dump that sees it change saw two rulesets. */
unsigned long mmb_ruleset_gen(const struct mmb_ruleset *rs)
{
	return rs->gen;
}

/* --- the owner ------------------------------------------------------------ */

/* An empty, published ruleset. */
int mmb_rules_init(struct mmb_rules *r)
{
	struct mmb_ruleset *rs;

	mutex_init(&r->lock);
	rs = mmb_ruleset_create(&r->lock);
	if (!rs)
		return -ENOMEM;
	r->next_handle = 1;
	mmb_ruleset_live(rs, NULL);
	rcu_assign_pointer(r->cur, rs);
	return 0;
}

/* Once no device reaches the rules any more: nothing can read them. */
void mmb_rules_exit(struct mmb_rules *r)
{
	mmb_ruleset_destroy(rcu_dereference_protected(r->cur, 1));
	mutex_destroy(&r->lock);
}

void mmb_rules_lock(struct mmb_rules *r)
{
	mutex_lock(&r->lock);
}

void mmb_rules_unlock(struct mmb_rules *r)
{
	mutex_unlock(&r->lock);
}

struct mmb_ruleset *mmb_rules_locked(struct mmb_rules *r)
{
	return rcu_dereference_protected(r->cur, lockdep_is_held(&r->lock));
}

/* A transaction; @unplaced: see mmb_txn_begin_batch(). */
static int __mmb_txn_begin(struct mmb_rules *r, struct mmb_txn *t, enum mmb_txn_how how,
			   bool unplaced)
{
	int err = -ENOMEM;

	mutex_lock(&r->lock);
	t->r = r;
	t->next_handle = r->next_handle;
	t->first = r->next_handle;
	t->ended = 0;
	t->prepared = false;
	t->rebuilt = false;
	t->heirs = NULL;
	t->nheirs = 0;
	t->old = NULL;
	t->aside = how != MMB_TXN_INPLACE;
	if (!t->aside) {
		t->rs = mmb_rules_locked(r);
		return 0;
	}
	t->rs = mmb_ruleset_create(&r->lock);
	if (!t->rs)
		goto err;
	t->rs->unplaced = unplaced;
	if (how == MMB_TXN_COPY) {
		err = mmb_ruleset_copy(t->rs, mmb_rules_locked(r));
		if (err) {
			mmb_ruleset_destroy(t->rs);
			goto err;
		}
	}
	return 0;

err:
	mutex_unlock(&r->lock);
	return err;
}

/* Begin a transaction (see ruleset.h); on failure the lock is not held. */
int mmb_txn_begin(struct mmb_rules *r, struct mmb_txn *t, enum mmb_txn_how how)
{
	return __mmb_txn_begin(r, t, how, false);
}

/*
 * Begin the transaction of a batch of @nops operations: aside (@how is
 * MMB_TXN_COPY or MMB_TXN_EMPTY). With MMB_UNPLACED_MIN or more, and the
 * rebuild on, no rule is put into a table until mmb_txn_prepare() builds
 * them all, once, widest masks first.
 */
int mmb_txn_begin_batch(struct mmb_rules *r, struct mmb_txn *t, enum mmb_txn_how how,
			unsigned int nops)
{
	if (WARN_ON_ONCE(how == MMB_TXN_INPLACE))
		return -EINVAL;
	return __mmb_txn_begin(r, t, how,
			       nops >= MMB_UNPLACED_MIN && READ_ONCE(mmb_merge_rebuild));
}

/*
 * Add @rule with the next handle (in rule->handle after). @img holds its
 * mask and key, or is NULL for them to be computed. On success the rule is
 * the ruleset's, and the caller may not touch it after the commit.
 */
int mmb_txn_add(struct mmb_txn *t, struct mmb_rule *rule, const struct mmb_rule_image *img)
{
	struct mmb_rule_image own;
	int err;

	if (!t->next_handle)
		return -ENOSPC;
	rule->handle = t->next_handle;
	if (!img && !t->rs->unplaced) {
		mmb_rule_key(rule, &own.mask, &own.key);
		img = &own;
	}
	err = mmb_ruleset_insert(t->rs, rule, img);
	if (err)
		return err;
	t->next_handle++;
	if (!t->aside)		/* in place: taken as soon as it is published */
		t->r->next_handle = t->next_handle;
	return 0;
}

/* Delete the rule with @handle: -ENOENT if there is none. */
int mmb_txn_del(struct mmb_txn *t, u32 handle)
{
	struct mmb_rule *rule = mmb_ruleset_find(t->rs, handle);
	int err;

	if (!rule)
		return -ENOENT;
	if (t->aside)
		return mmb_ruleset_remove(t->rs, rule);
	/* In place: gone from the datapath once removed. */
	refcount_inc(&rule->ref);
	err = mmb_ruleset_remove(t->rs, rule);
	if (!err && rule->stateful) {
		WRITE_ONCE(rule->dead, true);
		t->ended++;
	}
	mmb_rule_put(rule);
	return err;
}

/* Drop every rule built so far (aside only). */
int mmb_txn_flush(struct mmb_txn *t)
{
	struct mmb_ruleset *empty;

	if (WARN_ON_ONCE(!t->aside))
		return -EINVAL;
	empty = mmb_ruleset_create(&t->r->lock);
	if (!empty)
		return -ENOMEM;
	empty->unplaced = t->rs->unplaced;
	mmb_ruleset_destroy(t->rs);
	t->rs = empty;
	return 0;
}

/*
 * Before an aside transaction is published: which of the stateful rules it
 * added could a rule it takes out live on as (mmb_ruleset_bury())? The
 * step of publishing that allocates, and may fail; no other change may
 * follow it. Publishing does it if the caller did not, and if it fails
 * then, the rules taken out end.
 */
int mmb_txn_prepare(struct mmb_txn *t)
{
	struct mmb_heir *heirs;

	if (!t->aside || t->prepared)
		return 0;
	/*
	 * The tables, built once now that the whole set is known; or built
	 * again: that failing leaves them as they were, complete, so the
	 * commit goes on.
	 */
	if (t->rs->unplaced && !t->rebuilt) {
		int err = mmb_tables_build(t->rs);

		if (err)
			return err;
		t->rs->unplaced = false;
	} else if (!t->rebuilt && READ_ONCE(mmb_merge_rebuild)) {
		mmb_tables_rebuild(t->rs, MMB_REBUILD_MIN);
	}
	t->rebuilt = true;
	if (mmb_rules_locked(t->r)->nstateful) {
		heirs = mmb_ruleset_heirs(t->rs, t->first, &t->nheirs);
		if (IS_ERR(heirs))
			return PTR_ERR(heirs);
		t->heirs = heirs;
	}
	t->prepared = true;
	return 0;
}

/*
 * Make the transaction's changes the rules: in place they are already;
 * aside, the new ruleset is published with one pointer store, and the
 * rules it no longer has are buried (successors or dead). The lock is
 * dropped; the old ruleset waits for mmb_txn_finish().
 */
void mmb_txn_publish(struct mmb_txn *t)
{
	struct mmb_rules *r = t->r;
	struct mmb_ruleset *old;

	if (!t->aside) {
		mutex_unlock(&r->lock);
		return;
	}
	if (mmb_txn_prepare(t))
		pr_warn_ratelimited("mmb: no memory to match the rules re-added: their connections end\n");
	/* Its rules in no table would judge no packet: prepare first. */
	WARN_ON_ONCE(t->rs->unplaced);
	old = mmb_rules_locked(r);
	mmb_ruleset_live(t->rs, old);
	rcu_assign_pointer(r->cur, t->rs);
	r->next_handle = t->next_handle;
	t->ended = mmb_ruleset_bury(old, t->rs, t->heirs, t->nheirs);
	mutex_unlock(&r->lock);
	kvfree(t->heirs);
	t->heirs = NULL;
	t->old = old;
}

/*
 * After mmb_txn_publish(), with no lock held (not RTNL either: this may
 * wait for a grace period): free the old ruleset once no reader can see
 * it. When stateful rules ended, that is waited for here: a packet that
 * judged by the old ruleset could still be making a connection for one of
 * them, and the caller's sweep must come after it.
 */
void mmb_txn_finish(struct mmb_txn *t)
{
	struct mmb_ruleset *old = t->old;

	if (!old)
		return;
	t->old = NULL;
	if (!t->ended && atomic_add_unless(&mmb_retiring, 1, MMB_RETIRING_MAX)) {
		INIT_RCU_WORK(&old->free_work, mmb_ruleset_free_work);
		queue_rcu_work(mmb_retire_wq, &old->free_work);
		return;
	}
	synchronize_rcu();
	mmb_ruleset_destroy(old);
}

/* Publish, then finish. */
void mmb_txn_commit(struct mmb_txn *t)
{
	mmb_txn_publish(t);
	mmb_txn_finish(t);
}

/* Give up: aside, nothing was published; in place, each change stands. */
void mmb_txn_abort(struct mmb_txn *t)
{
	mutex_unlock(&t->r->lock);
	kvfree(t->heirs);
	t->heirs = NULL;
	if (t->aside)
		mmb_ruleset_destroy(t->rs);
}

/*
 * Wait until every ruleset a commit replaced, and every rule no ruleset,
 * connection or predecessor holds any more, is freed (tests).
 */
void mmb_rules_barrier(void)
{
	rcu_barrier();			/* queue_rcu_work()'s grace periods */
	flush_workqueue(mmb_retire_wq);	/* the rulesets: they put their rules */
	mmb_rule_drain();
}
