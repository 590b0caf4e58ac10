package io.nodeatlas.match.cel;

import static io.nodeatlas.match.cel.CostEstimator.LIST_CREATE;
import static io.nodeatlas.match.cel.CostEstimator.REGEX_LENGTH;
import static io.nodeatlas.match.cel.CostEstimator.STRING_TRAVERSAL;
import static io.nodeatlas.match.cel.CostEstimator.UNKNOWN;
import static io.nodeatlas.match.cel.CostEstimator.add;
import static io.nodeatlas.match.cel.CostEstimator.append;
import static io.nodeatlas.match.cel.CostEstimator.factor;
import static io.nodeatlas.match.cel.CostEstimator.multiply;

import dev.cel.common.ast.CelConstant;
import dev.cel.common.ast.CelExpr;
import dev.cel.common.types.CelKind;
import dev.cel.common.types.CelType;
import io.nodeatlas.match.cel.CostEstimator.Size;
import java.util.List;
import java.util.Optional;

/**
 * The call costs of the libraries, as their estimators give them to cel-go's checker: the overload estimators
 * of cel-go's {@code ext} lists (version 3) and sets, k8s.io/apiserver {@code pkg/cel/library/cost.go}
 * ({@code CostEstimator.EstimateCallCost}) and DRA's {@code includes} ({@code cel/compile.go},
 * {@code draCostEstimator}). A null answer leaves the call to cel-go's own rules in {@link CostEstimator}.
 */
final class LibraryCallCosts {

  /** What a rule needs of the estimate around it. */
  interface Coster {
    Size sizeOrUnknown(CelExpr e);

    Optional<CelType> type(CelExpr e);

    List<String> path(CelExpr e);

    boolean isList(CelExpr e);

    CostEstimator.SizeBounds bounds();
  }

  /** The call's own cost, without its arguments', and the size of its result where the rule knows it. */
  record Call(long cost, Size size) {}

  private LibraryCallCosts() {}

  /** cel-go's {@code ext} lists (version 3) and sets overload estimators; consulted first, as cel-go does. */
  static Call extension(Coster c, String function, String overload, CelExpr target, List<CelExpr> args) {
    switch (function) {
      case "slice" -> {
        if (target != null && args.size() == 2) {
          long max = c.sizeOrUnknown(target).max();
          long start = literalUint(args.get(0), 0);
          long end = literalUint(args.get(1), max);
          return allocatingList(1, end < start ? Size.UNKNOWN_SIZE : Size.fixed(end - start));
        }
      }
      case "lists.range" -> {
        if (target == null && args.size() == 1) {
          return allocatingList(1, Size.fixed(literalUint(args.get(0), UNKNOWN)));
        }
      }
      case "reverse" -> {
        if (target != null && args.isEmpty() && c.isList(target)) {
          return allocatingList(1, c.sizeOrUnknown(target));
        }
      }
      case "flatten" -> {
        if (target != null && args.size() <= 1) {
          long levels = args.isEmpty() ? 1 : literalUint(args.get(0), UNKNOWN);
          Size sz = c.sizeOrUnknown(target);
          return new Call(add(add(multiply(sz.max(), levels), 1), LIST_CREATE), sz);
        }
      }
      case "distinct" -> {
        if (target != null && args.isEmpty()) {
          Size sz = c.sizeOrUnknown(target);
          return allocatingList(2, sz.times(sz));
        }
      }
      case "sort" -> {
        if (target != null && args.isEmpty()) {
          return sortCost(c, target);
        }
      }
      case "sets.contains", "sets.intersects", "sets.equivalent" -> {
        if (args.size() == 2) {
          long n = multiply(c.sizeOrUnknown(args.get(0)).max(), c.sizeOrUnknown(args.get(1)).max());
          return new Call(add(function.equals("sets.equivalent") ? multiply(n, 2) : n, 1), null);
        }
      }
      default -> {
        if (function.endsWith("sortByAssociatedKeys") && target != null && args.size() == 1) {
          return sortCost(c, args.get(0));
        }
      }
    }
    return null;
  }

  private static Call sortCost(Coster c, CelExpr list) {
    Size sz = c.sizeOrUnknown(list);
    double f = 2.0;
    Optional<CelType> elem = c.type(list).filter(t -> t.kind() == CelKind.LIST && !t.parameters().isEmpty())
        .map(t -> t.parameters().get(0));
    if (elem.isPresent() && (elem.get().kind() == CelKind.STRING || elem.get().kind() == CelKind.BYTES)) {
      f += STRING_TRAVERSAL;
    }
    return allocatingList(f, sz.times(sz));
  }

  private static Call allocatingList(double factor, Size size) {
    return new Call(add(add(factor(size.max(), factor), 1), LIST_CREATE), size);
  }

  /** k8s.io/apiserver {@code library.CostEstimator.EstimateCallCost}, with DRA's {@code includes} rule first. */
  static Call kubernetes(Coster c, String function, String overload, CelExpr target, List<CelExpr> args) {
    switch (function) {
      case "includes" -> {
        if (target != null) {
          return new Call(KubernetesLibraries.MAX_LIST_VALUES, null);
        }
      }
      case "isSorted", "sum", "max", "min", "indexOf", "lastIndexOf" -> {
        if (target != null) {
          Optional<CelType> elem = c.type(target).filter(t -> t.kind() == CelKind.LIST && !t.parameters().isEmpty())
              .map(t -> t.parameters().get(0));
          if (elem.isPresent()) {
            long el = 1;
            if (elem.get().kind() == CelKind.STRING || elem.get().kind() == CelKind.BYTES) {
              List<String> p = c.path(target);
              long itemSize = c.bounds().of(p == null ? List.of() : append(p, "@items"), elem).map(Size::max)
                  .orElse(UNKNOWN);
              el = add(el, factor(itemSize, STRING_TRAVERSAL));
            }
            return new Call(multiply(c.sizeOrUnknown(target).max(), el), null);
          }
          return new Call(factor(c.sizeOrUnknown(target).max(), STRING_TRAVERSAL), null);
        }
      }
      case "lowerAscii", "upperAscii", "substring", "trim" -> {
        if (target != null) {
          Size sz = c.sizeOrUnknown(target);
          return new Call(factor(sz.max(), STRING_TRAVERSAL), sz);
        }
      }
      case "replace" -> {
        if (target != null && args.size() >= 2) {
          Size sz = c.sizeOrUnknown(target);
          Size from = c.sizeOrUnknown(args.get(0));
          Size with = c.sizeOrUnknown(args.get(1));
          long count;
          long retained = 0;
          if (from.min() == 0) {
            count = sz.max() == UNKNOWN ? UNKNOWN : sz.max() + 1;
            retained = sz.max();
          } else if (with.max() <= from.min()) {
            count = 0;
            retained = sz.max();
          } else {
            count = (long) Math.ceil((double) sz.max() / from.min());
          }
          Size out = new Size(0, add(multiply(count, with.max()), retained));
          return new Call(factor(sz.max(), 2 * STRING_TRAVERSAL), out);
        }
      }
      case "split" -> {
        if (target != null) {
          Size sz = c.sizeOrUnknown(target);
          long max = sz.max();
          if (args.size() > 1 && args.get(1).getKind() == CelExpr.ExprKind.Kind.CONSTANT
              && args.get(1).constant().getKind() == CelConstant.Kind.INT64_VALUE) {
            max = args.get(1).constant().int64Value();
          }
          return new Call(factor(sz.max(), 2 * STRING_TRAVERSAL), new Size(0, max));
        }
      }
      case "join" -> {
        if (target != null) {
          Size list = c.sizeOrUnknown(target);
          Size sz = new Size(0, 0);
          List<String> p = c.path(target);
          Optional<CelType> elem = c.type(target).filter(t -> !t.parameters().isEmpty())
              .map(t -> t.parameters().get(0));
          if (elem.isPresent()) {
            Size item = c.bounds().of(p == null ? List.of() : append(p, "@items"), elem).orElse(Size.UNKNOWN_SIZE);
            sz = list.times(item);
          }
          if (!args.isEmpty()) {
            Size sep = c.sizeOrUnknown(args.get(0));
            sz = sz.plus(sep.times(new Size(Math.max(0, list.min() - 1), Math.max(0, list.max() - 1))));
          }
          return new Call(factor(sz.max(), STRING_TRAVERSAL), sz);
        }
      }
      case "find", "findAll" -> {
        if (target != null && !args.isEmpty()) {
          Size sz = c.sizeOrUnknown(target);
          long str = factor(add(sz.max(), 1), STRING_TRAVERSAL);
          long re = factor(c.sizeOrUnknown(args.get(0)).max(), REGEX_LENGTH);
          return new Call(multiply(str, re), new Size(0, sz.max()));
        }
      }
      case "cidr", "isIP", "isCIDR", "quantity", "isQuantity", "semver", "isSemver" -> {
        if (!args.isEmpty()) {
          return new Call(factor(c.sizeOrUnknown(args.get(0)).max(), STRING_TRAVERSAL), null);
        }
      }
      case "ip" -> {
        if (overload.equals("cidr_ip")) {
          return new Call(1, null);
        }
        if (!args.isEmpty()) {
          return new Call(factor(c.sizeOrUnknown(args.get(0)).max(), STRING_TRAVERSAL), null);
        }
      }
      case "ip.isCanonical" -> {
        if (!args.isEmpty()) {
          return new Call(factor(c.sizeOrUnknown(args.get(0)).max(), 2 * STRING_TRAVERSAL), null);
        }
      }
      case "masked", "prefixLength", "family", "isUnspecified", "isLoopback", "isLinkLocalMulticast",
          "isLinkLocalUnicast", "isGlobalUnicast", "sign", "asInteger", "isInteger", "asApproximateFloat",
          "isGreaterThan", "isLessThan", "compareTo", "add", "sub", "major", "minor", "patch" -> {
        return new Call(1, null);
      }
      case "containsIP", "containsCIDR" -> {
        if (!args.isEmpty()) {
          long cost = factor(32, STRING_TRAVERSAL); // two 4-to-16-byte addresses compared
          if (function.equals("containsCIDR")) {
            cost = add(cost, add(factor(16, STRING_TRAVERSAL), 1));
          }
          if (overload.endsWith("_string")) {
            cost = add(cost, factor(c.sizeOrUnknown(args.get(0)).max(), STRING_TRAVERSAL));
          }
          return new Call(cost, null);
        }
      }
      case "_==_" -> {
        if (args.size() == 2) {
          Optional<CelType> l = c.type(args.get(0));
          Optional<CelType> r = c.type(args.get(1));
          if (l.isPresent() && l.equals(r)) {
            String name = l.get().name();
            if (name.equals("net.IP") || name.equals("net.CIDR") || name.equals("kubernetes.Quantity")
                || name.equals("kubernetes.Semver")) {
              return new Call(1, null);
            }
          }
        }
      }
      default -> { }
    }
    return null;
  }

  private static long literalUint(CelExpr e, long fallback) {
    if (e.getKind() == CelExpr.ExprKind.Kind.CONSTANT) {
      if (e.constant().getKind() == CelConstant.Kind.INT64_VALUE && e.constant().int64Value() >= 0) {
        return e.constant().int64Value();
      }
      if (e.constant().getKind() == CelConstant.Kind.UINT64_VALUE) {
        long v = e.constant().uint64Value().longValue();
        return v < 0 ? UNKNOWN : v;
      }
    }
    return fallback;
  }
}
