package io.nodeatlas.match.cel;

import com.google.common.primitives.UnsignedLong;
import com.google.re2j.Matcher;
import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;
import dev.cel.common.CelFunctionDecl;
import dev.cel.common.CelOverloadDecl;
import dev.cel.common.types.CelType;
import dev.cel.common.types.ListType;
import dev.cel.common.types.OpaqueType;
import dev.cel.common.types.SimpleType;
import dev.cel.common.types.TypeParamType;
import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelFunctionBinding;
import java.util.ArrayList;
import java.util.List;

/**
 * The apiserver CEL libraries of the base environment (k8s.io/apiserver {@code pkg/cel/environment/base.go}
 * at compatibility version 1.37) that cel-java lacks, declared and bound for cel-java:
 *
 * <ul>
 *   <li>regex ({@code pkg/cel/library/regex.go}): {@code find}, {@code findAll}, on RE2 like Go's {@code regexp};
 *   <li>lists ({@code pkg/cel/library/lists.go}, version 1): {@code isSorted}, {@code sum}, {@code min}, {@code max},
 *       {@code indexOf}, {@code lastIndexOf};
 *   <li>{@code includes} as DRA declares it ({@code dynamic-resource-allocation/cel/compile.go}, KEP-5491): on a
 *       list, membership of at most {@link #MAX_LIST_VALUES} values; on a scalar, equality;
 *   <li>ip and cidr ({@code pkg/cel/library/ip.go}, {@code cidr.go}): the {@code net.IP} and {@code net.CIDR} types.
 * </ul>
 */
final class KubernetesLibraries {

  static final OpaqueType IP = OpaqueType.create("net.IP");
  static final OpaqueType CIDR = OpaqueType.create("net.CIDR");

  /** {@code resource.ResourceSliceMaxAttributeValuesPerDevice}: the longest list {@code includes} accepts. */
  static final int MAX_LIST_VALUES = 48;

  private KubernetesLibraries() {}

  /** Element types the lists library compares (its {@code comparableTypes}) and sums ({@code summableTypes}). */
  private static final List<CelType> COMPARABLE = List.of(SimpleType.INT, SimpleType.UINT, SimpleType.DOUBLE,
      SimpleType.BOOL, SimpleType.DURATION, SimpleType.TIMESTAMP, SimpleType.STRING, SimpleType.BYTES);
  private static final List<CelType> SUMMABLE = List.of(SimpleType.INT, SimpleType.UINT, SimpleType.DOUBLE,
      SimpleType.DURATION);

  static List<CelFunctionDecl> declarations() {
    CelType str = SimpleType.STRING;
    CelType bool = SimpleType.BOOL;
    CelType integer = SimpleType.INT;
    CelType dyn = SimpleType.DYN;
    List<CelFunctionDecl> out = new ArrayList<>();
    out.add(CelFunctionDecl.newFunctionDeclaration("find",
        CelOverloadDecl.newMemberOverload("string_find_string", str, str, str)));
    out.add(CelFunctionDecl.newFunctionDeclaration("findAll",
        CelOverloadDecl.newMemberOverload("string_find_all_string", ListType.create(str), str, str),
        CelOverloadDecl.newMemberOverload("string_find_all_string_int", ListType.create(str), str, str, integer)));

    List<CelOverloadDecl> isSorted = new ArrayList<>();
    List<CelOverloadDecl> min = new ArrayList<>();
    List<CelOverloadDecl> max = new ArrayList<>();
    for (CelType t : COMPARABLE) {
      isSorted.add(CelOverloadDecl.newMemberOverload("list_" + t.name() + "_is_sorted_bool", bool, ListType.create(t)));
      min.add(CelOverloadDecl.newMemberOverload("list_" + t.name() + "_min_" + t.name(), t, ListType.create(t)));
      max.add(CelOverloadDecl.newMemberOverload("list_" + t.name() + "_max_" + t.name(), t, ListType.create(t)));
    }
    List<CelOverloadDecl> sum = new ArrayList<>();
    for (CelType t : SUMMABLE) {
      sum.add(CelOverloadDecl.newMemberOverload("list_" + t.name() + "_sum_" + t.name(), t, ListType.create(t)));
    }
    out.add(CelFunctionDecl.newFunctionDeclaration("isSorted", isSorted));
    out.add(CelFunctionDecl.newFunctionDeclaration("min", min));
    out.add(CelFunctionDecl.newFunctionDeclaration("max", max));
    out.add(CelFunctionDecl.newFunctionDeclaration("sum", sum));
    TypeParamType a = TypeParamType.create("A");
    out.add(CelFunctionDecl.newFunctionDeclaration("indexOf",
        CelOverloadDecl.newMemberOverload("list_a_index_of_int", integer, ListType.create(a), a)));
    out.add(CelFunctionDecl.newFunctionDeclaration("lastIndexOf",
        CelOverloadDecl.newMemberOverload("list_a_last_index_of_int", integer, ListType.create(a), a)));
    out.add(CelFunctionDecl.newFunctionDeclaration("includes",
        CelOverloadDecl.newMemberOverload("dra_includes_dyn_dyn", bool, dyn, dyn)));

    out.add(CelFunctionDecl.newFunctionDeclaration("ip",
        CelOverloadDecl.newGlobalOverload("string_to_ip", IP, str),
        CelOverloadDecl.newMemberOverload("cidr_ip", IP, CIDR)));
    out.add(CelFunctionDecl.newFunctionDeclaration("ip.isCanonical",
        CelOverloadDecl.newGlobalOverload("ip_is_canonical", bool, str)));
    out.add(CelFunctionDecl.newFunctionDeclaration("isIP", CelOverloadDecl.newGlobalOverload("is_ip", bool, str)));
    out.add(CelFunctionDecl.newFunctionDeclaration("family", CelOverloadDecl.newMemberOverload("ip_family", integer, IP)));
    for (String[] p : new String[][] {{"isUnspecified", "ip_is_unspecified"}, {"isLoopback", "ip_is_loopback"},
        {"isLinkLocalMulticast", "ip_is_link_local_multicast"}, {"isLinkLocalUnicast", "ip_is_link_local_unicast"},
        {"isGlobalUnicast", "ip_is_global_unicast"}}) {
      out.add(CelFunctionDecl.newFunctionDeclaration(p[0], CelOverloadDecl.newMemberOverload(p[1], bool, IP)));
    }
    out.add(CelFunctionDecl.newFunctionDeclaration("cidr", CelOverloadDecl.newGlobalOverload("string_to_cidr", CIDR, str)));
    out.add(CelFunctionDecl.newFunctionDeclaration("isCIDR", CelOverloadDecl.newGlobalOverload("is_cidr", bool, str)));
    out.add(CelFunctionDecl.newFunctionDeclaration("containsIP",
        CelOverloadDecl.newMemberOverload("cidr_contains_ip_string", bool, CIDR, str),
        CelOverloadDecl.newMemberOverload("cidr_contains_ip_ip", bool, CIDR, IP)));
    out.add(CelFunctionDecl.newFunctionDeclaration("containsCIDR",
        CelOverloadDecl.newMemberOverload("cidr_contains_cidr_string", bool, CIDR, str),
        CelOverloadDecl.newMemberOverload("cidr_contains_cidr", bool, CIDR, CIDR)));
    out.add(CelFunctionDecl.newFunctionDeclaration("prefixLength",
        CelOverloadDecl.newMemberOverload("cidr_prefix_length", integer, CIDR)));
    out.add(CelFunctionDecl.newFunctionDeclaration("masked", CelOverloadDecl.newMemberOverload("cidr_masked", CIDR, CIDR)));
    out.add(CelFunctionDecl.newFunctionDeclaration("string",
        CelOverloadDecl.newGlobalOverload("ip_to_string", str, IP),
        CelOverloadDecl.newGlobalOverload("cidr_to_string", str, CIDR)));
    return out;
  }

  interface Equality {
    boolean equal(Object a, Object b);
  }

  static List<CelFunctionBinding> bindings(Equality lenientEquals) {
    List<CelFunctionBinding> out = new ArrayList<>();
    out.add(CelFunctionBinding.from("string_find_string", String.class, String.class, KubernetesLibraries::find));
    out.add(CelFunctionBinding.from("string_find_all_string", String.class, String.class,
        (s, re) -> findAll(s, re, -1)));
    out.add(CelFunctionBinding.from("string_find_all_string_int", List.of(String.class, String.class, Long.class),
        args -> findAll((String) args[0], (String) args[1], (Long) args[2])));
    for (CelType t : COMPARABLE) {
      out.add(CelFunctionBinding.from("list_" + t.name() + "_is_sorted_bool", List.class, KubernetesLibraries::isSorted));
      out.add(CelFunctionBinding.from("list_" + t.name() + "_min_" + t.name(), List.class, l -> extreme(l, "min", -1)));
      out.add(CelFunctionBinding.from("list_" + t.name() + "_max_" + t.name(), List.class, l -> extreme(l, "max", 1)));
    }
    for (CelType t : SUMMABLE) {
      Object zero = switch (t.name()) {
        case "int" -> 0L;
        case "uint" -> UnsignedLong.ZERO;
        case "double" -> 0.0d;
        default -> com.google.protobuf.Duration.getDefaultInstance();
      };
      out.add(CelFunctionBinding.from("list_" + t.name() + "_sum_" + t.name(), List.class, l -> sum(l, zero)));
    }
    out.add(CelFunctionBinding.from("list_a_index_of_int", List.class, Object.class, (l, x) -> {
      for (int i = 0; i < l.size(); i++) {
        if (lenientEquals.equal(l.get(i), x)) {
          return (long) i;
        }
      }
      return -1L;
    }));
    out.add(CelFunctionBinding.from("list_a_last_index_of_int", List.class, Object.class, (l, x) -> {
      for (int i = l.size() - 1; i >= 0; i--) {
        if (lenientEquals.equal(l.get(i), x)) {
          return (long) i;
        }
      }
      return -1L;
    }));
    out.add(CelFunctionBinding.from("dra_includes_dyn_dyn", Object.class, Object.class, (target, x) -> {
      if (target instanceof List<?> list) {
        int i = 0;
        for (Object item : list) {
          if (i++ >= MAX_LIST_VALUES) {
            throw new CelEvaluationException("'includes' function cannot be applied to lists longer than "
                + MAX_LIST_VALUES + " values");
          }
          if (lenientEquals.equal(item, x)) {
            return true;
          }
        }
        return false;
      }
      return lenientEquals.equal(target, x);
    }));

    out.add(CelFunctionBinding.from("string_to_ip", String.class, s -> call(() -> NetAddress.parse(s))));
    out.add(CelFunctionBinding.from("cidr_ip", NetPrefix.class, NetPrefix::address));
    out.add(CelFunctionBinding.from("ip_is_canonical", String.class,
        s -> call(() -> NetAddress.parse(s).toString().equals(s))));
    out.add(CelFunctionBinding.from("is_ip", String.class, NetAddress::isValid));
    out.add(CelFunctionBinding.from("ip_family", NetAddress.class, NetAddress::family));
    out.add(CelFunctionBinding.from("ip_is_unspecified", NetAddress.class, NetAddress::isUnspecified));
    out.add(CelFunctionBinding.from("ip_is_loopback", NetAddress.class, NetAddress::isLoopback));
    out.add(CelFunctionBinding.from("ip_is_link_local_multicast", NetAddress.class, NetAddress::isLinkLocalMulticast));
    out.add(CelFunctionBinding.from("ip_is_link_local_unicast", NetAddress.class, NetAddress::isLinkLocalUnicast));
    out.add(CelFunctionBinding.from("ip_is_global_unicast", NetAddress.class, NetAddress::isGlobalUnicast));
    out.add(CelFunctionBinding.from("string_to_cidr", String.class, s -> call(() -> NetPrefix.parse(s))));
    out.add(CelFunctionBinding.from("is_cidr", String.class, NetPrefix::isValid));
    out.add(CelFunctionBinding.from("cidr_contains_ip_string", NetPrefix.class, String.class,
        (c, s) -> call(() -> c.contains(NetAddress.parse(s)))));
    out.add(CelFunctionBinding.from("cidr_contains_ip_ip", NetPrefix.class, NetAddress.class, NetPrefix::contains));
    out.add(CelFunctionBinding.from("cidr_contains_cidr_string", NetPrefix.class, String.class,
        (c, s) -> call(() -> c.containsPrefix(NetPrefix.parse(s)))));
    out.add(CelFunctionBinding.from("cidr_contains_cidr", NetPrefix.class, NetPrefix.class, NetPrefix::containsPrefix));
    out.add(CelFunctionBinding.from("cidr_prefix_length", NetPrefix.class, c -> (long) c.bits()));
    out.add(CelFunctionBinding.from("cidr_masked", NetPrefix.class, NetPrefix::masked));
    out.add(CelFunctionBinding.from("ip_to_string", NetAddress.class, NetAddress::toString));
    out.add(CelFunctionBinding.from("cidr_to_string", NetPrefix.class, NetPrefix::toString));
    return out;
  }

  private static Pattern compile(String regex) throws CelEvaluationException {
    try {
      return Pattern.compile(regex);
    } catch (PatternSyntaxException e) {
      throw new CelEvaluationException("Illegal regex: " + e.getMessage());
    }
  }

  /** Go's {@code Regexp.FindString}: the leftmost match, or "" when there is none. */
  static String find(String s, String regex) throws CelEvaluationException {
    Matcher m = compile(regex).matcher(s);
    return m.find() ? m.group() : "";
  }

  /**
   * Go's {@code Regexp.FindAllString}: at most {@code n} successive matches ({@code n < 0}: all), an empty match
   * right after the previous match left out.
   */
  static List<String> findAll(String s, String regex, long n) throws CelEvaluationException {
    Matcher m = compile(regex).matcher(s);
    List<String> out = new ArrayList<>();
    int pos = 0;
    int prevEnd = -1;
    while ((n < 0 || out.size() < n) && pos <= s.length() && m.find(pos)) {
      int start = m.start();
      int end = m.end();
      if (start == end) {
        if (start == prevEnd) {
          if (start >= s.length()) {
            break;
          }
          pos = start + Character.charCount(s.codePointAt(start));
          continue;
        }
        out.add("");
        prevEnd = end;
        if (start >= s.length()) {
          break;
        }
        pos = start + Character.charCount(s.codePointAt(start));
      } else {
        out.add(m.group());
        prevEnd = end;
        pos = end;
      }
    }
    return out;
  }

  private static boolean isSorted(List<?> list) throws CelEvaluationException {
    for (int i = 1; i < list.size(); i++) {
      if (compare(list.get(i - 1), list.get(i)) > 0) {
        return false;
      }
    }
    return true;
  }

  private static Object extreme(List<?> list, String name, int prefer) throws CelEvaluationException {
    if (list.isEmpty()) {
      throw new CelEvaluationException(name + " called on empty list");
    }
    Object best = list.get(0);
    for (Object o : list) {
      if (Integer.signum(compare(o, best)) == prefer) {
        best = o;
      }
    }
    return best;
  }

  private static Object sum(List<?> list, Object zero) throws CelEvaluationException {
    Object acc = zero;
    for (Object o : list) {
      if (acc instanceof Long a && o instanceof Long b) {
        try {
          acc = Math.addExact(a, b);
        } catch (ArithmeticException e) {
          throw new CelEvaluationException("integer overflow");
        }
      } else if (acc instanceof UnsignedLong a && o instanceof UnsignedLong b) {
        if (Long.compareUnsigned(a.longValue() + b.longValue(), a.longValue()) < 0) {
          throw new CelEvaluationException("unsigned integer overflow");
        }
        acc = a.plus(b);
      } else if (acc instanceof Double a && o instanceof Double b) {
        acc = a + b;
      } else if (acc instanceof com.google.protobuf.Duration a && o instanceof com.google.protobuf.Duration b) {
        long nanos = (long) a.getNanos() + b.getNanos();
        long seconds = Math.addExact(Math.addExact(a.getSeconds(), b.getSeconds()), Math.floorDiv(nanos, 1_000_000_000L));
        acc = com.google.protobuf.Duration.newBuilder().setSeconds(seconds)
            .setNanos((int) Math.floorMod(nanos, 1_000_000_000L)).build();
      } else if (acc instanceof java.time.Duration a && o instanceof java.time.Duration b) {
        acc = a.plus(b);
      } else if (acc instanceof com.google.protobuf.Duration && o instanceof java.time.Duration b) {
        acc = b;
      } else {
        throw new CelEvaluationException("no such overload: sum over " + DraCelEnvironment.typeName(o));
      }
    }
    return acc;
  }

  /** The order the lists library compares in (cel-go's {@code traits.Comparer}). */
  @SuppressWarnings({"unchecked", "rawtypes"})
  static int compare(Object a, Object b) throws CelEvaluationException {
    if (a instanceof com.google.protobuf.Duration x && b instanceof com.google.protobuf.Duration y) {
      return x.getSeconds() != y.getSeconds() ? Long.compare(x.getSeconds(), y.getSeconds())
          : Integer.compare(x.getNanos(), y.getNanos());
    }
    if (a instanceof com.google.protobuf.Timestamp x && b instanceof com.google.protobuf.Timestamp y) {
      return x.getSeconds() != y.getSeconds() ? Long.compare(x.getSeconds(), y.getSeconds())
          : Integer.compare(x.getNanos(), y.getNanos());
    }
    if (a instanceof com.google.protobuf.ByteString x && b instanceof com.google.protobuf.ByteString y) {
      return com.google.protobuf.ByteString.unsignedLexicographicalComparator().compare(x, y);
    }
    if (a instanceof dev.cel.common.values.CelByteString x && b instanceof dev.cel.common.values.CelByteString y) {
      return dev.cel.common.values.CelByteString.unsignedLexicographicalComparator().compare(x, y);
    }
    if (a instanceof String x && b instanceof String y) {
      return compareUtf8(x, y);
    }
    if (a != null && b != null && a.getClass() == b.getClass() && a instanceof Comparable c) {
      return c.compareTo(b);
    }
    throw new CelEvaluationException("no such overload: cannot compare " + DraCelEnvironment.typeName(a) + " with "
        + DraCelEnvironment.typeName(b));
  }

  /** Go compares strings by their UTF-8 bytes, which is code point order. */
  private static int compareUtf8(String x, String y) {
    int i = 0;
    int j = 0;
    while (i < x.length() && j < y.length()) {
      int cx = x.codePointAt(i);
      int cy = y.codePointAt(j);
      if (cx != cy) {
        return Integer.compare(cx, cy);
      }
      i += Character.charCount(cx);
      j += Character.charCount(cy);
    }
    return Integer.compare(x.length() - i, y.length() - j);
  }

  private interface Step<T> {
    T get();
  }

  private static <T> T call(Step<T> step) throws CelEvaluationException {
    try {
      return step.get();
    } catch (IllegalArgumentException e) {
      throw new CelEvaluationException(e.getMessage());
    }
  }
}
