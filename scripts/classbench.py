#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ClassBench-style rule sets for `make perf`, and their mmb, nft linear and
nft set forms.

A rule set is generated from a ClassBench parameter ("seed") file, the
public statistics of a real filter set (Taylor and Turner, "ClassBench: A
Packet Classification Benchmark", IEEE/ACM ToN 15(3), 2007), all twelve of
which are in scripts/classbench-seeds/ with their origin. This is our own
reading of the method the paper publishes, not its program:

  1. Each rule draws a protocol (-prots), then a port-pair class of that
     protocol (the same line: WC, HI, LO, AR, EM for source and
     destination), then its ports: WC 0-65535, HI 1024-65535, LO 0-1023,
     AR a range from -spar/-dpar, EM an exact port from -spem/-dpem.
  2. Then its prefix lengths, from the class's joint distribution: a total
     length, then the source length given the total (-wc_wc ... -em_em).
  3. Addresses come last, per side, from a binary trie built top down: the
     rules still longer than the depth either all follow one branch or split
     in two, as -sskew/-dskew give per depth (the probability of one child,
     of two, and the skew: 1 - lighter/heavier of the two subtrees).

  4. Smoothness s (the paper's example uses 2; its range is 0 to 64)
     spreads each prefix length binomially over s + 1 lengths around it, as
     real sets aggregate less neatly than a seed's spikes; a wildcard stays
     a wildcard.

The published generator's other parameters (options before the positional
arguments; each 0 or 1 leaves the seed as it is):

  --addr-scope A (-1 to 1): biases the draw of a rule's prefix-length pair
     (step 2, the total length) toward wider (A > 0) or narrower (A < 0)
     rules. The seed's rows are ordered from the most specific (longest
     total) to the widest, and the draw's uniform number u is replaced by
     one of density 1 - A + 2Au on [0, 1): A = 1 puts twice the weight on
     the wide end that A = 0 does, none on the narrow end.
  --app-scope B (-1 to 1): the same bias on the protocol (the wildcard the
     widest) and the port-pair class (ordered by the ports it covers: WC,
     HI, LO, AR, EM per side), step 1.
  --trie-skew F (0 to 1/max skew): every depth's skew (step 3) times F,
     capped at 1; below 1 the address trie branches more evenly, above
     it more lopsidedly.
  --order specific: the rules written most specific first (the longest
     source plus destination prefix, a stable sort), as an ordered ACL puts
     its exceptions above its broad lines; the default is the order drawn.
     The classifier must not depend on it: a table merging that takes the
     rules as they come keeps 2-4 times more tables in this order.

The scope of a rule is how many headers it covers, as in the paper; the
direction of A and B (positive: wider) is ours, stated here.

Duplicate rules (same fields after masking) are dropped, as ClassBench's
redundancy check does; the set is cut or topped up to N rules.

With --first-match the set is an ordered filter set, as ClassBench's own
filter sets are read (the first matching rule decides): rule i (0-based, in
the order of the file) gets an action, accept or drop, half and half at
random from the seed number (ClassBench's filter format has no action field,
so the mix is ours), and mmb priority N - i (the first rule highest); a last
rule, priority 0, accepts everything, as a filter set's default line. The
nft linear chain lists the same rules in the same order with the same
actions (first match), policy accept. There is no nft set form: pipapo
refuses an element that overlaps one it holds and a set has no order, so
it cannot hold ordered overlapping rules. A generated rule that matches
every header (ClassBench's wc_wc class of total length 0 makes one per
set) is left out of the ordered set: in a drop-only set its place does
not matter, in a first-match set it would shadow every rule after it
(two thirds of ACL 10k's, 96% of FW's, 98% of IPC's); a filter set's
catch-all is its last line, the default rule. The ordered set has the
remaining rules, then the default.

It also writes OUTDIR/hits.cfg (a drop-only set too), a trafgen configuration of 1024 packets
each drawn from the box of a rule picked at random (a point of its
prefixes and port ranges, its protocol: TCP, UDP for UDP and the wildcard,
or a bare IPv4 payload of its number), with DA_MAC and SA_MAC to fill in,
and in stats the fraction of them the set drops by first match (hitdrop).

usage: classbench.py [--first-match] [--addr-scope A] [--app-scope B]
                     [--trie-skew F] [--order drawn|specific] SEED N SEED_NUMBER SMOOTHNESS OUTDIR [DEVICE]
Writes OUTDIR/{rules,mmb,nft-linear,nft-set,nft-set-elements,stats}
(--first-match: OUTDIR/{rules,mmb,nft-linear,hits.cfg,stats}, rules with
the action as an eighth column).
"""
import math
import random
import sys

PPC = ["wc_wc", "wc_hi", "hi_wc", "hi_hi", "wc_lo", "lo_wc", "hi_lo", "lo_hi",
       "lo_lo", "wc_ar", "ar_wc", "hi_ar", "ar_hi", "wc_em", "em_wc", "hi_em",
       "em_hi", "lo_ar", "ar_lo", "lo_em", "em_lo", "ar_ar", "ar_em", "em_ar",
       "em_em"]


def parse_seed(path):
    """Sections of a seed file: name -> list of lines (split on white space)."""
    sec, name = {}, None
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("-"):
                name = line[1:]
                sec[name] = []
            elif line == "#":
                name = None
            elif line and name:
                sec[name].append(line.split())
    return sec


def scoped(rng, a):
    """A number in [0, 1) of density 1 - a + 2au (a in [-1, 1]; 0: uniform)."""
    y = rng.random()
    if abs(a) < 1e-9:
        return y
    # The inverse of F(u) = (1 - a)u + au^2.
    return (-(1 - a) + math.sqrt((1 - a) ** 2 + 4 * a * y)) / (2 * a)


def pick(rng, items, scope=0.0):
    """One value of [(weight, value), ...]; weights need not sum to 1. With
    a scope, the items must be ordered from the narrowest to the widest."""
    total = sum(w for w, _ in items)
    x = scoped(rng, scope) * total
    for w, v in items:
        x -= w
        if x < 0:
            return v
    return items[-1][1]


# Ports a class covers, as bits (AR: a typical range of the seeds).
PORT_SCOPE = {"wc": 16, "hi": 15.9, "lo": 10, "ar": 6, "em": 0}


def ppc_scope(c):
    s, d = c.split("_")
    return PORT_SCOPE[s] + PORT_SCOPE[d]


class Seed:
    def __init__(self, path, smoothness, addr_scope=0.0, app_scope=0.0, trie_skew=1.0):
        s = parse_seed(path)
        self.smoothness = smoothness
        self.addr_scope, self.app_scope = addr_scope, app_scope
        self.prots = []
        for row in s["prots"]:
            probs = [float(p) for p in row[2:2 + len(PPC)]]
            self.prots.append((float(row[1]), (int(row[0]), probs)))
        # Narrowest first, for a scope's bias: a protocol, then the wildcard
        # (without a bias, the seed's order: the sets of scope 0 stay as
        # they were).
        if app_scope:
            self.prots.sort(key=lambda p: p[1][0] == 0)
        self.ppc_order = sorted(range(len(PPC)), key=lambda i: ppc_scope(PPC[i])) \
            if app_scope else list(range(len(PPC)))
        self.ports = {}
        for side in ("sp", "dp"):
            for kind in ("ar", "em"):
                self.ports[side + kind] = [
                    (float(w), tuple(int(p) for p in r.split(":")))
                    for w, r in s.get(side + kind, [])]
        self.lens = {}
        for c in PPC:
            rows = []
            for row in s.get(c, []):
                total, w = row[0].split(",")
                srcs = [(float(p), int(l)) for l, p in (x.split(",") for x in row[1:])]
                rows.append((float(w), (int(total), srcs)))
            # Narrowest (longest total) first, for a scope's bias.
            if addr_scope:
                rows.sort(key=lambda r: -r[1][0])
            self.lens[c] = rows
        self.skew = {}
        for side in ("sskew", "dskew"):
            self.skew[side] = {int(r[0]): (float(r[1]), float(r[2]),
                                           min(1.0, float(r[3]) * trie_skew))
                               for r in s[side]}

    def port(self, rng, side, cls):
        if cls == "wc":
            return (0, 65535)
        if cls == "hi":
            return (1024, 65535)
        if cls == "lo":
            return (0, 1023)
        table = self.ports[side + cls]
        return pick(rng, table) if table else (0, 65535)

    def rule_shape(self, rng):
        """Protocol, ports and prefix lengths of one rule."""
        proto, probs = pick(rng, self.prots, self.app_scope)
        cls = pick(rng, [(probs[i], PPC[i]) for i in self.ppc_order], self.app_scope)
        if not self.lens[cls]:
            cls = "wc_wc"
        sc, dc = cls.split("_")
        sport, dport = self.port(rng, "sp", sc), self.port(rng, "dp", dc)
        total, srcs = (pick(rng, self.lens[cls], self.addr_scope) if self.lens[cls]
                       else (0, [(1, 0)]))
        slen = pick(rng, srcs)
        dlen = max(0, min(32, total - slen))
        return proto, sport, dport, self.smooth(rng, slen), self.smooth(rng, dlen)

    def smooth(self, rng, plen):
        """A prefix length spread binomially around the seed's (width s)."""
        d = sum(rng.getrandbits(1) for _ in range(self.smoothness)) - self.smoothness // 2
        return max(0, min(32, plen + d)) if plen else 0


def addresses(rng, lens, skew):
    """An address per prefix length, from a trie shaped by the skew table."""
    out = [0] * len(lens)

    def walk(idx, depth, prefix):
        deeper = []
        for i in idx:
            if lens[i] == depth:
                out[i] = prefix << (32 - depth) if depth else 0
            else:
                deeper.append(i)
        if not deeper:
            return
        one, two, sk = skew.get(depth, (0.5, 0.5, 0.5))
        rng.shuffle(deeper)
        if len(deeper) == 1 or rng.random() * (one + two) < one:
            walk(deeper, depth + 1, prefix << 1 | rng.getrandbits(1))
            return
        # Two subtrees: lighter / heavier = 1 - skew.
        light = max(1, round(len(deeper) * (1 - sk) / (2 - sk)))
        heavy_bit = rng.getrandbits(1)
        walk(deeper[light:], depth + 1, prefix << 1 | heavy_bit)
        walk(deeper[:light], depth + 1, prefix << 1 | (heavy_bit ^ 1))

    walk(list(range(len(lens))), 0, 0)
    return out


def ip(a):
    return ".".join(str(a >> s & 255) for s in (24, 16, 8, 0))


def generate(seed, n, rng):
    rules, seen = [], set()
    while len(rules) < n:
        want = n - len(rules)
        shapes = [seed.rule_shape(rng) for _ in range(want + want // 8 + 8)]
        src = addresses(rng, [s[3] for s in shapes], seed.skew["sskew"])
        dst = addresses(rng, [s[4] for s in shapes], seed.skew["dskew"])
        for (proto, sp, dp, sl, dl), sa, da in zip(shapes, src, dst):
            if proto not in (6, 17):
                sp = dp = (0, 65535)
            r = (sa, sl, da, dl, proto, sp, dp)
            if r not in seen and len(rules) < n:
                seen.add(r)
                rules.append(r)
    return rules


def mmb_port(name, p):
    if p == (0, 65535):
        return ""
    if p[0] == p[1]:
        return f" {name} {p[0]}"
    return f" {name} >= {p[0]} {name} <= {p[1]}"


def mmb_rule(r, action="drop", prio=None):
    sa, sl, da, dl, proto, sp, dp = r
    s = "add" if prio is None else f"add priority {prio}"
    bare = s
    if sl:
        s += f" ip-saddr {ip(sa)}/{sl}"
    if dl:
        s += f" ip-daddr {ip(da)}/{dl}"
    if proto in (6, 17):
        l4 = "tcp" if proto == 6 else "udp"
        s += f" ip-proto {l4}" + mmb_port(l4 + "-sport", sp) + mmb_port(l4 + "-dport", dp)
    elif proto:
        s += f" ip-proto {proto}"
    if s == bare:
        s += " all"
    return f"{s} {action}"


def nft_rule(r, action="drop"):
    sa, sl, da, dl, proto, sp, dp = r
    s = ""
    if sl:
        s += f" ip saddr {ip(sa)}/{sl}"
    if dl:
        s += f" ip daddr {ip(da)}/{dl}"
    if proto in (6, 17):
        l4 = "tcp" if proto == 6 else "udp"
        for name, p in (("sport", sp), ("dport", dp)):
            if p != (0, 65535):
                s += f" {l4} {name} " + (str(p[0]) if p[0] == p[1] else f"{p[0]}-{p[1]}")
        if s.find(l4) < 0:
            s += f" ip protocol {l4}"
    elif proto:
        s += f" ip protocol {proto}"
    return f"{s.strip()} {action}"


def volume(r):
    """How many headers a rule covers, as bits of freedom."""
    sa, sl, da, dl, proto, sp, dp = r
    return ((32 - sl) + (32 - dl) + (0 if proto else 8) +
            math.log2(sp[1] - sp[0] + 1) + math.log2(dp[1] - dp[0] + 1))


def nft_elem(r):
    sa, sl, da, dl, proto, sp, dp = r
    proto = str(proto) if proto else "0-255"
    return f"{ip(sa)}/{sl} . {ip(da)}/{dl} . {proto} . {sp[0]}-{sp[1]} . {dp[0]}-{dp[1]}"


def actions(n, seedno):
    """Rule i's action in a first-match set: accept or drop, 50/50, from a
    generator of its own (the rules stay those of the drop-only set)."""
    rng = random.Random(f"first-match {seedno}")
    return ["accept" if rng.getrandbits(1) else "drop" for _ in range(n)]


WILDCARD = (0, 0, 0, 0, 0, (0, 65535), (0, 65535))


def box(r):
    """A rule's box: (low, high) per field (source, destination, protocol,
    source port, destination port)."""
    sa, sl, da, dl, proto, sp, dp = r
    return ((sa, sa | (1 << (32 - sl)) - 1), (da, da | (1 << (32 - dl)) - 1),
            (proto, proto) if proto else (0, 255), sp, dp)


def first_match(boxes, acts, pkt):
    for b, a in zip(boxes, acts):
        if all(lo <= v <= hi for (lo, hi), v in zip(b, pkt)):
            return a
    return "accept"     # the default rule


def hits(rules, acts, seedno, out, count=1024):
    """trafgen packets from the rules' boxes; the fraction the set drops
    (acts None: a drop-only set, which drops them all)."""
    rng = random.Random(f"hits {seedno}")
    boxes = [box(r) for r in rules]
    pkts, dropped = [], 0
    for _ in range(count):
        b = boxes[rng.randrange(len(boxes))]
        sa, da = (rng.randint(max(lo, 1 << 24), min(hi, (224 << 24) - 1))
                  if hi - lo == 0xffffffff else rng.randint(lo, hi) for lo, hi in b[:2])
        proto = b[2][0] if b[2][0] == b[2][1] else 17
        sp, dp = rng.randint(*b[3]), rng.randint(*b[4])
        if proto not in (6, 17):
            sp = dp = 0     # no ports: a rule of this protocol has none
        if acts is not None:
            dropped += first_match(boxes, acts, (sa, da, proto, sp, dp)) == "drop"
        l4 = {6: f"tcp(sp={sp}, dp={dp}, ack)", 17: f"udp(sp={sp}, dp={dp})"}.get(
            proto, "0, 0, 0, 0, 0, 0, 0, 0")
        pkts.append(f"{{ eth(da=DA_MAC, sa=SA_MAC), ipv4(saddr={ip(sa)}, daddr={ip(da)}, "
                    f"proto={proto}, ttl=64), {l4} }}\n")
    with open(f"{out}/hits.cfg", "w") as f:
        f.write("".join(pkts))
    return dropped / count if acts is not None else 1.0


def write_first_match(rules, seedno, out, hook):
    """The ordered set; returns (rules, accepts, catch-alls left out, hit drop fraction)."""
    wild = rules.count(WILDCARD)
    rules = [r for r in rules if r != WILDCARD]
    acts = actions(len(rules), seedno)
    n = len(rules)
    with open(f"{out}/rules", "w") as f:
        for r, a in zip(rules, acts):
            f.write(" ".join(map(str, r)) + f" {a}\n")
    with open(f"{out}/mmb", "w") as f:
        f.write("".join(mmb_rule(r, a, n - i) + "\n"
                        for i, (r, a) in enumerate(zip(rules, acts))))
        f.write("add all accept\n")
    with open(f"{out}/nft-linear", "w") as f:
        f.write("table netdev perf {\n chain c {\n" + hook.replace(";", "; policy accept;"))
        f.write("".join(f"  {nft_rule(r, a)}\n" for r, a in zip(rules, acts)))
        f.write(" }\n}\n")
    return n, acts.count("accept"), wild, hits(rules, acts, seedno, out)


def main():
    args = sys.argv[1:]
    first_match = "--first-match" in args
    if first_match:
        args.remove("--first-match")
    opts = {"--addr-scope": 0.0, "--app-scope": 0.0, "--trie-skew": 1.0}
    order = "drawn"
    while args and (args[0] in opts or args[0] == "--order"):
        if args[0] == "--order":
            order = args[1]
        else:
            opts[args[0]] = float(args[1])
        args = args[2:]
    if order not in ("drawn", "specific"):
        sys.exit("classbench.py: --order is drawn or specific")
    if not -1 <= opts["--addr-scope"] <= 1 or not -1 <= opts["--app-scope"] <= 1 or \
            opts["--trie-skew"] < 0:
        sys.exit("classbench.py: scopes are in [-1, 1], the trie skew factor >= 0")
    seed_path, n, seedno, smooth, out = args[0:5]
    if not 0 <= int(smooth) <= 64:
        sys.exit("classbench.py: smoothness is in [0, 64]")
    dev = args[5] if len(args) > 5 else "veth0"
    seed = Seed(seed_path, int(smooth), opts["--addr-scope"], opts["--app-scope"],
                opts["--trie-skew"])
    rules = generate(seed, int(n), random.Random(int(seedno)))
    if order == "specific":
        rules.sort(key=lambda r: -(r[1] + r[3]))
    hook = f"  type filter hook ingress device {dev} priority 0;\n"
    shapes = {(r[1], r[3], r[4] != 0, r[5] if r[5][0] == r[5][1] else None,
               r[6] if r[6][0] == r[6][1] else None) for r in rules}
    masks = {(s[0], s[1], s[2], s[3] is not None, s[4] is not None) for s in shapes}
    ranges = sum(1 for r in rules
                 if any(p[0] != p[1] and p != (0, 65535) for p in (r[5], r[6])))
    if first_match:
        n, accepts, wild, hitdrop = write_first_match(rules, seedno, out, hook)
        with open(f"{out}/stats", "w") as f:
            f.write(f"rules {n} masks {len(masks)} ranges {ranges} accept {accepts} "
                    f"drop {n - accepts} catchall {wild} hitdrop {hitdrop:.4f}\n")
        return
    with open(f"{out}/rules", "w") as f:
        for r in rules:
            f.write(" ".join(map(str, r)) + "\n")
    with open(f"{out}/mmb", "w") as f:
        f.write("".join(mmb_rule(r) + "\n" for r in rules))
    with open(f"{out}/nft-linear", "w") as f:
        f.write("table netdev perf {\n chain c {\n" + hook)
        f.write("".join(f"  {nft_rule(r)}\n" for r in rules))
        f.write(" }\n}\n")
    # The set's elements are added 50 per command afterwards (one huge
    # command takes the set's whole interval work at once).
    with open(f"{out}/nft-set", "w") as f:
        f.write("table netdev perf {\n set s {\n"
                "  type ipv4_addr . ipv4_addr . inet_proto . inet_service . inet_service\n"
                "  flags interval\n }\n chain c {\n" + hook +
                "  ip saddr . ip daddr . ip protocol . th sport . th dport @s drop\n }\n}\n")
    # pipapo refuses an element whose first or last point lies in one it
    # holds: the most specific go first, so that fewer are refused.
    elems = sorted(rules, key=volume)
    with open(f"{out}/nft-set-elements", "w") as f:
        for i in range(0, len(elems), 50):
            f.write("add element netdev perf s { " +
                    ", ".join(nft_elem(r) for r in elems[i:i + 50]) + " }\n")
    hits(rules, None, seedno, out)
    with open(f"{out}/stats", "w") as f:
        f.write(f"rules {len(rules)} masks {len(masks)} ranges {ranges}\n")


if __name__ == "__main__":
    main()
