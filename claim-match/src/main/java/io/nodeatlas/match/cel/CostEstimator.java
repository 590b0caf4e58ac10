package io.nodeatlas.match.cel;

import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.ast.CelConstant;
import dev.cel.common.ast.CelExpr;
import dev.cel.common.types.CelKind;
import dev.cel.common.types.CelType;
import io.nodeatlas.match.cel.LibraryCallCosts.Call;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The worst-case cost of a selector, checked against {@link DraCelEnvironment#MAX_COST} the way the API server
 * rejects selectors that are "too complex". cel-java has no estimator, so this one follows the three the
 * scheduler stacks, rule for rule, so that it is never below theirs:
 *
 * <ul>
 *   <li>cel-go {@code checker/cost.go}: identifiers and field selections cost 1, constants 0, {@code has()} 0,
 *       list creation 10, map creation 30, a call 1 plus its arguments unless a rule below says otherwise;
 *       strings are charged a tenth per character and regular expressions a quarter per pattern character; a
 *       comprehension costs its range size times its loop condition and step;
 *   <li>the call costs of the libraries ({@link LibraryCallCosts}): cel-go's {@code ext} lists and sets
 *       estimators, k8s.io/apiserver {@code pkg/cel/library/cost.go} and DRA's {@code includes};
 *   <li>DRA's {@code cel/compile.go} size estimator, the sizes reachable from {@code device}: a driver name of
 *       63 characters, domains of 63, identifiers of 32, 32 domains and 32 names per map, an attribute of 64
 *       characters or values.
 * </ul>
 *
 * <p>A size nothing bounds is unknown ({@link Long#MAX_VALUE}); a cost that depends on one is over the limit.
 */
final class CostEstimator implements LibraryCallCosts.Coster {

  /** ResourceSliceMaxAttributesAndCapacitiesPerDevice. */
  static final long DEVICE_MAP_SIZE = 32;
  /** max(DeviceAttributeMaxValueLength, ResourceSliceMaxAttributeValuesPerDevice). */
  static final long ATTRIBUTE_SIZE = 64;
  static final long DOMAIN_SIZE = 63;
  static final long ID_SIZE = 32;
  static final long DRIVER_SIZE = 63;
  static final long UNKNOWN = Long.MAX_VALUE;
  static final double STRING_TRAVERSAL = 0.1;
  static final double REGEX_LENGTH = 0.25;
  static final long LIST_CREATE = 10;
  private static final long MAP_CREATE = 30;
  private static final long STRUCT_CREATE = 40;

  /** A size range, as cel-go's {@code SizeEstimate}. */
  record Size(long min, long max) {
    static final Size UNKNOWN_SIZE = new Size(0, UNKNOWN);

    static Size fixed(long n) {
      return new Size(n, n);
    }

    Size union(Size o) {
      return new Size(Math.min(min, o.min), Math.max(max, o.max));
    }

    Size plus(Size o) {
      return new Size(add(min, o.min), add(max, o.max));
    }

    Size times(Size o) {
      return new Size(multiply(min, o.min), multiply(max, o.max));
    }
  }

  /** A container's key and value sizes, as cel-go's {@code entrySizeEstimate}. */
  private record Entries(boolean list, Size key, Size val) {
    Entries union(Entries o) {
      if (o == null) {
        return this;
      }
      return new Entries(list, key.union(o.key), val.union(o.val));
    }
  }

  private record Local(List<String> path, Size size, Entries entries) {}

  /** The environment's size estimator (cel-go's {@code CostEstimator.EstimateSize}): the bound of a path or type. */
  interface SizeBounds {
    Optional<Size> of(List<String> path, Optional<CelType> type);
  }

  /** DRA's: what is reachable from {@code device}. */
  static final SizeBounds DRA = (path, type) -> estimateSize(path);

  private final CelAbstractSyntaxTree ast;
  private final SizeBounds bounds;

  @Override
  public SizeBounds bounds() {
    return bounds;
  }
  private final Map<Long, List<String>> paths = new HashMap<>();
  private final Map<Long, Size> sizes = new HashMap<>();
  private final Map<Long, Entries> entries = new HashMap<>();
  private final Map<String, Deque<Local>> locals = new HashMap<>();
  private int depth;

  private CostEstimator(CelAbstractSyntaxTree ast, SizeBounds bounds) {
    this.ast = ast;
    this.bounds = bounds;
  }

  static long estimate(CelAbstractSyntaxTree ast) {
    return estimate(ast, DRA);
  }

  static long estimate(CelAbstractSyntaxTree ast, SizeBounds bounds) {
    return new CostEstimator(ast, bounds).cost(ast.getExpr());
  }

  private long cost(CelExpr e) {
    if (++depth > 500) {
      depth--;
      return UNKNOWN;
    }
    try {
      return switch (e.getKind()) {
        case CONSTANT, NOT_SET -> 0;
        case IDENT -> {
          Local v = peek(e.ident().name());
          paths.put(e.id(), v != null ? v.path : List.of(e.ident().name()));
          yield 1;
        }
        case SELECT -> select(e);
        case CALL -> call(e);
        case LIST -> {
          long c = LIST_CREATE;
          Size item = e.list().elements().isEmpty() ? Size.fixed(0) : null;
          for (CelExpr el : e.list().elements()) {
            c = add(c, cost(el));
            Size s = sizeOrUnknown(el);
            item = item == null ? s : item.union(s);
          }
          entries.put(e.id(), new Entries(true, Size.fixed(1), item));
          yield c;
        }
        case MAP -> {
          long c = MAP_CREATE;
          Size k = e.map().entries().isEmpty() ? Size.fixed(0) : null;
          Size v = k;
          for (var entry : e.map().entries()) {
            c = add(c, add(cost(entry.key()), cost(entry.value())));
            k = k == null ? sizeOrUnknown(entry.key()) : k.union(sizeOrUnknown(entry.key()));
            v = v == null ? sizeOrUnknown(entry.value()) : v.union(sizeOrUnknown(entry.value()));
          }
          entries.put(e.id(), new Entries(false, k, v));
          yield c;
        }
        case STRUCT -> {
          long c = STRUCT_CREATE;
          for (var entry : e.struct().entries()) {
            c = add(c, cost(entry.value()));
          }
          yield c;
        }
        case COMPREHENSION -> isBind(e) ? bind(e) : comprehension(e);
      };
    } finally {
      depth--;
    }
  }

  private long select(CelExpr e) {
    CelExpr operand = e.select().operand();
    if (e.select().testOnly()) {
      return cost(operand); // has(): apiserver's PresenceTestHasCost(false)
    }
    long c = cost(operand);
    CelKind kind = type(operand).map(CelType::kind).orElse(CelKind.DYN);
    if (kind == CelKind.MAP || kind == CelKind.STRUCT || kind == CelKind.TYPE_PARAM) {
      c = add(c, 1);
    }
    paths.put(e.id(), append(path(operand), e.select().field()));
    return c;
  }

  private long call(CelExpr e) {
    var call = e.call();
    List<CelExpr> args = call.args();
    if (call.function().equals("dyn") && args.size() == 1) {
      long c = add(1, cost(args.get(0)));
      copySize(e, args.get(0));
      return c;
    }
    long[] argCosts = new long[args.size()];
    for (int i = 0; i < args.size(); i++) {
      argCosts[i] = cost(args.get(i));
    }
    List<String> overloads = ast.getReference(e.id()).map(r -> (List<String>) r.overloadIds()).orElse(List.of());
    if (overloads.isEmpty()) {
      return 0;
    }
    long sum = 0;
    CelExpr target = call.target().orElse(null);
    if (target != null) {
      sum = cost(target);
    }
    long fn = 0;
    Size result = null;
    for (String overload : overloads) {
      Call est = functionCost(e, call.function(), overload, target, args, argCosts);
      fn = Math.max(fn, est.cost());
      if (est.size() != null) {
        result = result == null ? est.size() : result.union(est.size());
      }
      if (overload.equals("index_list") || overload.equals("index_map")) {
        if (!args.isEmpty()) {
          Entries en = entries(args.get(0));
          result = en == null ? null : en.val;
          paths.put(e.id(), append(path(args.get(0)), overload.equals("index_list") ? "@items" : "@values"));
        }
      }
      if (result == null) {
        result = computeSize(e);
      }
    }
    if (result != null) {
      sizes.put(e.id(), result);
    }
    return add(sum, fn);
  }


  private Call functionCost(CelExpr e, String function, String overload, CelExpr target, List<CelExpr> args,
      long[] argCosts) {
    long argSum = 0;
    for (long c : argCosts) {
      argSum = add(argSum, c);
    }
    Call ext = LibraryCallCosts.extension(this, function, overload, target, args);
    if (ext == null) {
      ext = LibraryCallCosts.kubernetes(this, function, overload, target, args);
    }
    if (ext != null) {
      return new Call(add(ext.cost(), argSum), ext.size());
    }
    if (function.equals("strings.quote") && args.size() == 1) {
      Size sz = sizeOrUnknown(args.get(0));
      return new Call(add(factor(sz.max, STRING_TRAVERSAL), argSum), new Size(sz.min + 2, add(multiply(sz.max, 2), 2)));
    }
    switch (overload) {
      case "string_to_bytes", "bytes_to_string", "starts_with_string", "ends_with_string" -> {
        if (args.size() == 1) {
          Size sz = sizeOrUnknown(args.get(0));
          Size out = overload.equals("string_to_bytes") ? new Size(sz.min, multiply(sz.max, 4))
              : overload.equals("bytes_to_string") ? new Size(sz.min / 4, sz.max) : null;
          return new Call(add(factor(sz.max, STRING_TRAVERSAL), argSum), out);
        }
      }
      case "in_list" -> {
        if (args.size() == 2) {
          return new Call(add(sizeOrUnknown(args.get(1)).max, argSum), null);
        }
      }
      case "matches_string" -> {
        if (target != null && args.size() == 1) {
          long str = factor(add(sizeOrUnknown(target).max, 1), STRING_TRAVERSAL);
          long re = factor(sizeOrUnknown(args.get(0)).max, REGEX_LENGTH);
          return new Call(add(multiply(str, re), argSum), null);
        }
      }
      case "contains_string" -> {
        if (target != null && args.size() == 1) {
          long str = factor(sizeOrUnknown(target).max, STRING_TRAVERSAL);
          long sub = factor(sizeOrUnknown(args.get(0)).max, STRING_TRAVERSAL);
          return new Call(add(multiply(str, sub), argSum), null);
        }
      }
      case "logical_or", "logical_and" -> {
        return new Call(argSum, null);
      }
      case "conditional" -> {
        Size size = sizeOrUnknown(args.get(1)).union(sizeOrUnknown(args.get(2)));
        Entries a = entries(args.get(1));
        Entries b = entries(args.get(2));
        if (a != null) {
          entries.put(e.id(), a.union(b));
        } else if (b != null) {
          entries.put(e.id(), b);
        }
        return new Call(add(argCosts[0], Math.max(argCosts[1], argCosts[2])), size);
      }
      case "add_string", "add_bytes", "add_list" -> {
        if (args.size() == 2) {
          Size size = sizeOrUnknown(args.get(0)).plus(sizeOrUnknown(args.get(1)));
          Entries a = entries(args.get(0));
          Entries b = entries(args.get(1));
          if (a != null) {
            entries.put(e.id(), a.union(b));
          } else if (b != null) {
            entries.put(e.id(), b);
          }
          long own = overload.equals("add_list") ? 1 : factor(size.max, STRING_TRAVERSAL);
          return new Call(add(own, argSum), size);
        }
      }
      case "less_string", "greater_string", "less_equals_string", "greater_equals_string", "less_bytes",
          "greater_bytes", "less_equals_bytes", "greater_equals_bytes", "equals", "not_equals" -> {
        long smallest = Math.min(sizeOrUnknown(args.get(0)).max, sizeOrUnknown(args.get(1)).max);
        return new Call(add(factor(smallest, STRING_TRAVERSAL), argSum), null);
      }
      default -> { }
    }
    return new Call(add(1, argSum), null);
  }

  private long comprehension(CelExpr e) {
    var comp = e.comprehension();
    long c = add(cost(comp.iterRange()), cost(comp.accuInit()));
    pushLocal(comp.accuVar(), comp.accuInit());
    boolean twoVars = comp.iterVar2() != null && !comp.iterVar2().isEmpty();
    Entries range = entries(comp.iterRange());
    boolean list = range != null ? range.list
        : type(comp.iterRange()).map(t -> t.kind() == CelKind.LIST).orElse(false);
    List<String> rangePath = path(comp.iterRange());
    if (twoVars) {
      push(comp.iterVar(), new Local(append(rangePath, list ? "@indices" : "@keys"),
          range == null ? null : range.key, null));
      push(comp.iterVar2(), new Local(append(rangePath, list ? "@items" : "@values"),
          range == null ? null : range.val, null));
    } else {
      push(comp.iterVar(), new Local(append(rangePath, list ? "@items" : "@keys"),
          range == null ? null : list ? range.val : range.key, null));
    }
    long loop = cost(comp.loopCondition());
    long step = cost(comp.loopStep());
    pop(comp.iterVar());
    if (twoVars) {
      pop(comp.iterVar2());
    }
    c = add(c, cost(comp.result()));
    pop(comp.accuVar());
    Size count = sizeOrUnknown(comp.iterRange());
    c = add(c, multiply(count.max, add(step, loop)));
    switch (comp.accuInit().getKind()) {
      case CONSTANT -> {
        Size s = computeSize(comp.accuInit());
        if (s != null) {
          sizes.put(e.id(), s);
        }
      }
      case LIST, MAP -> {
        sizes.put(e.id(), count);
        Entries stepEntries = entries(comp.loopStep());
        if (stepEntries != null) {
          entries.put(e.id(), stepEntries);
        }
      }
      default -> { }
    }
    return c;
  }

  /** {@code cel.bind}: an empty range, a false loop condition and an accumulator of the user's naming. */
  private static boolean isBind(CelExpr e) {
    var comp = e.comprehension();
    return comp.iterRange().getKind() == CelExpr.ExprKind.Kind.LIST && comp.iterRange().list().elements().isEmpty()
        && comp.loopCondition().getKind() == CelExpr.ExprKind.Kind.CONSTANT
        && comp.loopCondition().constant().getKind() == CelConstant.Kind.BOOLEAN_VALUE
        && !comp.loopCondition().constant().booleanValue()
        && !isAccumulator(comp.accuVar());
  }

  private long bind(CelExpr e) {
    var comp = e.comprehension();
    long c = add(cost(comp.iterRange()), cost(comp.accuInit()));
    pushLocal(comp.accuVar(), comp.accuInit());
    c = add(c, cost(comp.result()));
    pop(comp.accuVar());
    copySize(e, comp.result());
    return c;
  }

  private static boolean isAccumulator(String name) {
    return name.equals("__result__") || name.equals("@result") || name.equals("@__result__");
  }

  private void pushLocal(String name, CelExpr init) {
    push(name, new Local(path(init), computeSize(init), entries(init)));
  }

  private void push(String name, Local v) {
    locals.computeIfAbsent(name, k -> new ArrayDeque<>()).push(v);
  }

  private void pop(String name) {
    Deque<Local> d = locals.get(name);
    if (d != null && !d.isEmpty()) {
      d.pop();
    }
  }

  private Local peek(String name) {
    Deque<Local> d = locals.get(name);
    return d == null || d.isEmpty() ? null : d.peek();
  }

  @Override
  public List<String> path(CelExpr e) {
    if (e.getKind() == CelExpr.ExprKind.Kind.IDENT) {
      Local v = peek(e.ident().name());
      if (v != null) {
        return v.path;
      }
    }
    return paths.get(e.id());
  }

  static List<String> append(List<String> path, String element) {
    List<String> out = new ArrayList<>(path == null ? List.of() : path);
    out.add(element);
    return List.copyOf(out);
  }

  @Override
  public Optional<CelType> type(CelExpr e) {
    return ast.getType(e.id());
  }

  @Override
  public boolean isList(CelExpr e) {
    return type(e).map(t -> t.kind() == CelKind.LIST).orElse(false);
  }

  private Entries entries(CelExpr e) {
    Entries en = entries.get(e.id());
    if (en != null) {
      return en;
    }
    if (e.getKind() == CelExpr.ExprKind.Kind.IDENT) {
      Local v = peek(e.ident().name());
      if (v != null) {
        return v.entries;
      }
    }
    return null;
  }

  private void copySize(CelExpr dst, CelExpr src) {
    Size s = computeSize(src);
    if (s != null) {
      sizes.put(dst.id(), s);
    }
    Entries en = entries(src);
    if (en != null) {
      entries.put(dst.id(), en);
    }
  }

  @Override
  public Size sizeOrUnknown(CelExpr e) {
    Size s = computeSize(e);
    return s == null ? Size.UNKNOWN_SIZE : s;
  }

  /** cel-go's {@code computeSize}: computed, literal, the environment's size estimator, scalar type, local. */
  private Size computeSize(CelExpr e) {
    Size s = sizes.get(e.id());
    if (s != null) {
      return s;
    }
    switch (e.getKind()) {
      case CONSTANT -> {
        CelConstant k = e.constant();
        return switch (k.getKind()) {
          case STRING_VALUE -> Size.fixed(k.stringValue().codePointCount(0, k.stringValue().length()));
          case BYTES_VALUE -> Size.fixed(k.bytesValue().size());
          default -> Size.fixed(1);
        };
      }
      case LIST -> {
        return Size.fixed(e.list().elements().size());
      }
      case MAP -> {
        return Size.fixed(e.map().entries().size());
      }
      default -> { }
    }
    List<String> p = path(e);
    {
      Optional<Size> est = bounds.of(p == null ? List.of() : p, type(e));
      if (est.isPresent()) {
        sizes.put(e.id(), est.get());
        return est.get();
      }
    }
    Optional<CelType> t = type(e);
    if (t.isPresent() && isScalar(t.get())) {
      return Size.fixed(1);
    }
    if (e.getKind() == CelExpr.ExprKind.Kind.IDENT) {
      Local v = peek(e.ident().name());
      if (v != null && v.size != null) {
        return v.size;
      }
    }
    return null;
  }

  private static boolean isScalar(CelType t) {
    return switch (t.kind()) {
      case BOOL, DOUBLE, DURATION, INT, TIMESTAMP, UINT -> true;
      default -> false;
    };
  }

  /** Where a path from {@code device} is in the {@code kubernetes.DRADevice} declaration. */
  private enum Decl {
    DEVICE(0), DRIVER(DRIVER_SIZE), MULTI(1), ATTRS(DEVICE_MAP_SIZE), ATTR_DOMAIN(DEVICE_MAP_SIZE),
    ATTR(ATTRIBUTE_SIZE), CAPS(DEVICE_MAP_SIZE), CAP_DOMAIN(DEVICE_MAP_SIZE), QUANTITY(-1), DOMAIN(DOMAIN_SIZE),
    ID(ID_SIZE);

    final long max;

    Decl(long max) {
      this.max = max;
    }
  }

  /** DRA's {@code sizeEstimator.EstimateSize}: the declared bound of what a path from {@code device} reaches. */
  static Optional<Size> estimateSize(List<String> path) {
    if (path.isEmpty() || !path.get(0).equals("device")) {
      return Optional.empty();
    }
    Decl d = Decl.DEVICE;
    for (String name : path.subList(1, path.size())) {
      d = switch (name) {
        case "@items", "@values" -> switch (d) {
          case ATTRS -> Decl.ATTR_DOMAIN;
          case ATTR_DOMAIN -> Decl.ATTR;
          case CAPS -> Decl.CAP_DOMAIN;
          case CAP_DOMAIN -> Decl.QUANTITY;
          default -> null;
        };
        case "@keys" -> switch (d) {
          case ATTRS, CAPS -> Decl.DOMAIN;
          case ATTR_DOMAIN, CAP_DOMAIN -> Decl.ID;
          default -> null;
        };
        default -> switch (d) {
          case DEVICE -> switch (name) {
            case "driver" -> Decl.DRIVER;
            case "allowMultipleAllocations" -> Decl.MULTI;
            case "attributes" -> Decl.ATTRS;
            case "capacity" -> Decl.CAPS;
            default -> null;
          };
          case ATTR_DOMAIN -> Decl.ATTR; // any name in a domain's attribute map
          default -> null;
        };
      };
      if (d == null) {
        return Optional.empty();
      }
    }
    return d.max < 0 ? Optional.empty() : Optional.of(new Size(0, d.max));
  }



  /** cel-go's {@code MultiplyByCostFactor}: rounded up, saturating. */
  static long factor(long size, double perUnit) {
    if (size == UNKNOWN) {
      return UNKNOWN;
    }
    double c = Math.ceil(size * perUnit);
    return c >= (double) UNKNOWN ? UNKNOWN : (long) c;
  }

  static long add(long a, long b) {
    long r = a + b;
    return r < 0 || a == UNKNOWN || b == UNKNOWN ? UNKNOWN : r;
  }

  static long multiply(long a, long b) {
    if (a == 0 || b == 0) {
      return 0;
    }
    return a > UNKNOWN / b ? UNKNOWN : a * b;
  }
}
