#!/bin/bash
ip link add d0 type dummy; ip link add d1 type dummy
cat > /tmp/r.nft <<'NFT'
table netdev nd {
  set bad { type ipv4_addr; flags interval; elements = { 192.0.2.0/24, 198.51.100.7, 203.0.113.1-203.0.113.9 } }
  set svc { type inet_service . ipv4_addr; elements = { 22 . 10.0.0.1, 80 . 10.0.0.2 } }
  chain in0 { type filter hook ingress device d0 priority 0; policy accept;
    ip saddr @bad counter drop
    ip saddr 10.1.0.0/16 ip daddr != 10.2.0.1 tcp dport { 22, 80, 1000-2000 } accept
    ip6 saddr 2001:db8::/32 udp sport 53 accept
    meta l4proto { tcp, udp } th dport 53 accept
    tcp dport . ip daddr @svc accept
    tcp flags syn tcp dport 443 accept
    tcp flags & (syn|ack) == syn accept
    tcp flags == syn|ack drop
    icmp type { echo-request, echo-reply } accept
    icmpv6 type echo-request accept
    ip ttl < 5 drop
    ip dscp cs1 ip ecn ce accept
    ip6 hoplimit 1 drop
    ip length > 1400 drop
    iifname "d0" ip protocol udp udp dport 123 accept
    ip saddr 10.3.0.0/16 jump sub
    ip saddr 10.4.0.0/16 goto sub
    ip saddr . ip daddr { 10.5.0.1 . 10.6.0.1, 10.5.0.2 . 10.6.0.0/24 } accept
    meta mark 5 accept
    meta protocol { ip, ip6 } drop
  }
  chain sub { ip daddr 10.9.0.1 return; tcp dport 8080 accept; udp dport 9 drop; }
}
table inet f {
  chain pre { type filter hook prerouting priority 0; policy drop;
    ct state established,related accept
    ct state invalid drop
    ip saddr 10.0.0.0/8 drop
    ct state new tcp dport 22 accept
    udp dport 53 accept
    meta nfproto ipv6 meta l4proto udp accept
  }
}
NFT
nft -f /tmp/r.nft && { echo ===JSON; nft -j list ruleset; echo; echo ===NFT; nft list ruleset; echo ===END; }
