package io.nodeatlas.match.cel;

import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The apiserver's ip and cidr tables, case by case: k8s.io/apiserver {@code pkg/cel/library/ip_test.go} and
 * {@code cidr_test.go} (HEAD of 2026-07-23). A value row holds when {@code (expression) == (expected)}; an error
 * row when evaluation fails with upstream's message (Go's {@code netip} wording included); a compile-error row
 * when the checker refuses the expression with upstream's message (a regular expression, as upstream matches it).
 * None is left out.
 */
class UpstreamIpCidrTableTest {

  private static final DraCelEnvironment ENV = new DraCelEnvironment();
  /** These tables test values, not costs: bound every size so that {@code type(x) == net.IP} (unbounded) compiles. */
  private static final CostEstimator.SizeBounds SMALL = (path, type) -> java.util.Optional.of(new CostEstimator.Size(0, 16));

  private static final LibraryTable TABLE = new LibraryTable();

  static {
    TABLE.value("ip: parse ipv4", "ip(\"192.168.0.1\")", "ip(\"192.168.0.1\")");
    TABLE.runtimeError("ip: parse invalid ipv4", "ip(\"192.168.0.1.0\")", "IP Address \"192.168.0.1.0\" parse error during conversion from string: ParseAddr(\"192.168.0.1.0\"): IPv4 address too long");
    TABLE.value("ip: isIP valid ipv4", "isIP(\"192.168.0.1\")", "true");
    TABLE.value("ip: isIP invalid ipv4", "isIP(\"192.168.0.1.0\")", "false");
    TABLE.value("ip: ip.isCanonical valid ipv4", "ip.isCanonical(\"127.0.0.1\")", "true");
    TABLE.runtimeError("ip: ip.isCanonical invalid ipv4", "ip.isCanonical(\"127.0.0.1.0\")", "IP Address \"127.0.0.1.0\" parse error during conversion from string: ParseAddr(\"127.0.0.1.0\"): IPv4 address too long");
    TABLE.value("ip: ipv4 family", "ip(\"192.168.0.1\").family()", "4");
    TABLE.value("ip: ipv4 isUnspecified true", "ip(\"0.0.0.0\").isUnspecified()", "true");
    TABLE.value("ip: ipv4 isUnspecified false", "ip(\"127.0.0.1\").isUnspecified()", "false");
    TABLE.value("ip: ipv4 isLoopback true", "ip(\"127.0.0.1\").isLoopback()", "true");
    TABLE.value("ip: ipv4 isLoopback false", "ip(\"1.2.3.4\").isLoopback()", "false");
    TABLE.value("ip: ipv4 isLinkLocalMulticast true", "ip(\"224.0.0.1\").isLinkLocalMulticast()", "true");
    TABLE.value("ip: ipv4 isLinkLocalMulticast false", "ip(\"224.0.1.1\").isLinkLocalMulticast()", "false");
    TABLE.value("ip: ipv4 isLinkLocalUnicast true", "ip(\"169.254.169.254\").isLinkLocalUnicast()", "true");
    TABLE.value("ip: ipv4 isLinkLocalUnicast false", "ip(\"192.168.0.1\").isLinkLocalUnicast()", "false");
    TABLE.value("ip: ipv4 isGlobalUnicast true", "ip(\"192.168.0.1\").isGlobalUnicast()", "true");
    TABLE.value("ip: ipv4 isGlobalUnicast false", "ip(\"255.255.255.255\").isGlobalUnicast()", "false");
    TABLE.value("ip: parse ipv6", "ip(\"2001:db8::68\")", "ip(\"2001:db8::68\")");
    TABLE.runtimeError("ip: parse invalid ipv6", "ip(\"2001:db8:::68\")", "IP Address \"2001:db8:::68\" parse error during conversion from string: ParseAddr(\"2001:db8:::68\"): each colon-separated field must have at least one digit (at \":68\")");
    TABLE.value("ip: isIP valid ipv6", "isIP(\"2001:db8::68\")", "true");
    TABLE.value("ip: isIP invalid ipv4", "isIP(\"2001:db8:::68\")", "false");
    TABLE.value("ip: ip.isCanonical valid ipv6", "ip.isCanonical(\"2001:db8::68\")", "true");
    TABLE.value("ip: ip.isCanonical non-canonical ipv6", "ip.isCanonical(\"2001:DB8::68\")", "false");
    TABLE.runtimeError("ip: ip.isCanonical invalid ipv6", "ip.isCanonical(\"2001:db8:::68\")", "IP Address \"2001:db8:::68\" parse error during conversion from string: ParseAddr(\"2001:db8:::68\"): each colon-separated field must have at least one digit (at \":68\")");
    TABLE.value("ip: ipv6 family", "ip(\"2001:db8::68\").family()", "6");
    TABLE.value("ip: ipv6 isUnspecified true", "ip(\"::\").isUnspecified()", "true");
    TABLE.value("ip: ipv6 isUnspecified false", "ip(\"::1\").isUnspecified()", "false");
    TABLE.value("ip: ipv6 isLoopback true", "ip(\"::1\").isLoopback()", "true");
    TABLE.value("ip: ipv6 isLoopback false", "ip(\"2001:db8::abcd\").isLoopback()", "false");
    TABLE.value("ip: ipv6 isLinkLocalMulticast true", "ip(\"ff02::1\").isLinkLocalMulticast()", "true");
    TABLE.value("ip: ipv6 isLinkLocalMulticast false", "ip(\"fd00::1\").isLinkLocalMulticast()", "false");
    TABLE.value("ip: ipv6 isLinkLocalUnicast true", "ip(\"fe80::1\").isLinkLocalUnicast()", "true");
    TABLE.value("ip: ipv6 isLinkLocalUnicast false", "ip(\"fd80::1\").isLinkLocalUnicast()", "false");
    TABLE.value("ip: ipv6 isGlobalUnicast true", "ip(\"2001:db8::abcd\").isGlobalUnicast()", "true");
    TABLE.value("ip: ipv6 isGlobalUnicast false", "ip(\"ff00::1\").isGlobalUnicast()", "false");
    TABLE.compileError("ip: passing cidr into isIP returns compile error", "isIP(cidr(\"192.168.0.0/24\"))", "found no matching overload for 'isIP' applied to '\\(net.CIDR\\)'");
    TABLE.value("ip: converting an IP address to a string", "string(ip(\"192.168.0.1\"))", "\"192.168.0.1\"");
    TABLE.value("ip: type of IP is net.IP", "type(ip(\"192.168.0.1\")) == net.IP", "true");
    TABLE.value("cidr: parse ipv4", "cidr(\"192.168.0.0/24\")", "cidr(\"192.168.0.0/24\")");
    TABLE.runtimeError("cidr: parse invalid ipv4", "cidr(\"192.168.0.0/\")", "network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix(\"192.168.0.0/\"): bad bits after slash: \"\"");
    TABLE.value("cidr: contains IP ipv4 (IP)", "cidr(\"192.168.0.0/24\").containsIP(ip(\"192.168.0.1\"))", "true");
    TABLE.value("cidr: does not contain IP ipv4 (IP)", "cidr(\"192.168.0.0/24\").containsIP(ip(\"192.168.1.1\"))", "false");
    TABLE.value("cidr: contains IP ipv4 (string)", "cidr(\"192.168.0.0/24\").containsIP(\"192.168.0.1\")", "true");
    TABLE.value("cidr: does not contain IP ipv4 (string)", "cidr(\"192.168.0.0/24\").containsIP(\"192.168.1.1\")", "false");
    TABLE.value("cidr: contains CIDR ipv4 (CIDR)", "cidr(\"192.168.0.0/24\").containsCIDR(cidr(\"192.168.0.0/25\"))", "true");
    TABLE.value("cidr: contains CIDR ipv4 (CIDR) (/32)", "cidr(\"192.168.0.0/24\").containsCIDR(cidr(\"192.168.0.1/32\"))", "true");
    TABLE.value("cidr: does not contain IP ipv4 (CIDR)", "cidr(\"192.168.0.0/24\").containsCIDR(cidr(\"192.168.0.0/23\"))", "false");
    TABLE.value("cidr: does not contain IP ipv4 (CIDR) (/32)", "cidr(\"192.168.0.0/24\").containsCIDR(cidr(\"192.169.0.1/32\"))", "false");
    TABLE.value("cidr: contains CIDR ipv4 (string)", "cidr(\"192.168.0.0/24\").containsCIDR(\"192.168.0.0/25\")", "true");
    TABLE.value("cidr: does not contain CIDR ipv4 (string)", "cidr(\"192.168.0.0/24\").containsCIDR(\"192.168.0.0/23\")", "false");
    TABLE.value("cidr: returns IP ipv4", "cidr(\"192.168.0.0/24\").ip()", "ip(\"192.168.0.0\")");
    TABLE.value("cidr: masks masked ipv4", "cidr(\"192.168.0.0/24\").masked()", "cidr(\"192.168.0.0/24\")");
    TABLE.value("cidr: masks unmasked ipv4", "cidr(\"192.168.0.1/24\").masked()", "cidr(\"192.168.0.0/24\")");
    TABLE.value("cidr: returns prefix length ipv4", "cidr(\"192.168.0.0/24\").prefixLength()", "24");
    TABLE.value("cidr: parse ipv6", "cidr(\"2001:db8::/32\")", "cidr(\"2001:db8::/32\")");
    TABLE.runtimeError("cidr: parse invalid ipv6", "cidr(\"2001:db8::/\")", "network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix(\"2001:db8::/\"): bad bits after slash: \"\"");
    TABLE.value("cidr: contains IP ipv6 (IP)", "cidr(\"2001:db8::/32\").containsIP(ip(\"2001:db8::1\"))", "true");
    TABLE.value("cidr: does not contain IP ipv6 (IP)", "cidr(\"2001:db8::/32\").containsIP(ip(\"2001:dc8::1\"))", "false");
    TABLE.value("cidr: contains IP ipv6 (string)", "cidr(\"2001:db8::/32\").containsIP(\"2001:db8::1\")", "true");
    TABLE.value("cidr: does not contain IP ipv6 (string)", "cidr(\"2001:db8::/32\").containsIP(\"2001:dc8::1\")", "false");
    TABLE.value("cidr: contains CIDR ipv6 (CIDR)", "cidr(\"2001:db8::/32\").containsCIDR(cidr(\"2001:db8::/33\"))", "true");
    TABLE.value("cidr: does not contain IP ipv6 (CIDR)", "cidr(\"2001:db8::/32\").containsCIDR(cidr(\"2001:db8::/31\"))", "false");
    TABLE.value("cidr: contains CIDR ipv6 (string)", "cidr(\"2001:db8::/32\").containsCIDR(\"2001:db8::/33\")", "true");
    TABLE.value("cidr: does not contain CIDR ipv6 (string)", "cidr(\"2001:db8::/32\").containsCIDR(\"2001:db8::/31\")", "false");
    TABLE.value("cidr: returns IP ipv6", "cidr(\"2001:db8::/32\").ip()", "ip(\"2001:db8::\")");
    TABLE.value("cidr: masks masked ipv6", "cidr(\"2001:db8::/32\").masked()", "cidr(\"2001:db8::/32\")");
    TABLE.value("cidr: masks unmasked ipv6", "cidr(\"2001:db8:1::/32\").masked()", "cidr(\"2001:db8::/32\")");
    TABLE.value("cidr: returns prefix length ipv6", "cidr(\"2001:db8::/32\").prefixLength()", "32");
    TABLE.value("cidr: converting a CIDR to a string", "string(cidr(\"192.168.0.0/24\"))", "\"192.168.0.0/24\"");
    TABLE.value("cidr: type of CIDR is net.CIDR", "type(cidr(\"192.168.0.0/24\")) == net.CIDR", "true");
  }

  static Stream<LibraryTable.Row> rows() {
    return TABLE.rows();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rows")
  void behavesAsTheApiserver(LibraryTable.Row r) throws Exception {
    LibraryTable.check(r, e -> ENV.compile(e, SMALL), true);
  }
}
