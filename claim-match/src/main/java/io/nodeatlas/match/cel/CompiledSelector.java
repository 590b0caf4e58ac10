package io.nodeatlas.match.cel;

import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.ast.CelExpr;
import dev.cel.common.navigation.CelNavigableAst;
import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelRuntime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A compiled selector, evaluated against one device at a time. Evaluation is deterministic and charged
 * against the cost limit: 1 per evaluated node plus a tenth of the size of each string, list or map it
 * produces (cel-go charges strings by size too), so a loop or a growing string is stopped at the limit
 * instead of running on.
 */
public final class CompiledSelector {

  private final String expression;
  private final CelRuntime.Program program;
  private final long costLimit;
  private final long estimatedCost;
  /** Expression ids of {@code device...} paths (selects and constant-key indexes), rendered. */
  private final Map<Long, String> devicePaths;
  private final List<Reference> references;
  /** The only facts of a device the selector reads, or null when it reads a map or the device as a whole. */
  private final List<Reference> projection;
  private final Optional<List<Reference>> projectionOrEmpty;

  /**
   * A constant lookup in {@code device.attributes} or {@code device.capacity}: the map ({@code attributes}
   * or {@code capacity}), the domain, and the name looked up in it ({@code null} for the domain alone).
   */
  public record Reference(String map, String domain, String name, String qualified) {
    /** {@code qualified}: {@code domain/name}, built once (a fleet looks it up on every device). */
    public Reference(String map, String domain, String name) {
      this(map, domain, name, domain == null || name == null ? null : domain + "/" + name);
    }
  }

  CompiledSelector(String expression, CelAbstractSyntaxTree ast, CelRuntime.Program program, long costLimit,
      long estimatedCost) {
    this.expression = expression;
    this.program = program;
    this.costLimit = costLimit;
    this.estimatedCost = estimatedCost;
    this.devicePaths = devicePaths(ast);
    this.references = references(ast);
    this.projection = projection(ast);
    this.projectionOrEmpty = Optional.ofNullable(projection);
  }

  /**
   * When the selector reads a device only through {@code device.driver}, {@code device.allowMultipleAllocations}
   * and constant names in constant domains ({@code device.attributes["d"].n}, {@code ["d"]["n"]},
   * {@code "n" in device.attributes["d"]}, {@code has(...)}), those facts, as references ({@code map} is
   * {@code driver} or {@code allowMultipleAllocations} for the two fields): two devices equal in them get
   * the same result. Empty when the selector reads anything else of the device.
   */
  public Optional<List<Reference>> projection() {
    return projectionOrEmpty;
  }

  /** Whether a result of this cost may stand for every device with the same projection (map sizes vary the cost). */
  public boolean shareable(SelectorResult r) {
    return r.cost() <= costLimit / 8;
  }

  private static List<Reference> projection(CelAbstractSyntaxTree ast) {
    List<Reference> out = new ArrayList<>();
    boolean[] ok = {true};
    CelNavigableAst.fromAst(ast).getRoot().allNodes().forEach(node -> {
      CelExpr e = node.expr();
      if (e.getKind() != CelExpr.ExprKind.Kind.IDENT || !e.ident().name().equals("device")) {
        return;
      }
      var parent = node.parent();
      if (parent.isEmpty() || parent.get().expr().getKind() != CelExpr.ExprKind.Kind.SELECT
          || parent.get().expr().select().testOnly()) {
        ok[0] = false;
        return;
      }
      String field = parent.get().expr().select().field();
      if (field.equals("driver") || field.equals("allowMultipleAllocations")) {
        out.add(new Reference(field, null, null));
        return;
      }
      var index = parent.get().parent();
      if (!(field.equals("attributes") || field.equals("capacity")) || index.isEmpty() || !isConstantIndex(index.get().expr())
          || index.get().expr().call().args().get(0).id() != parent.get().expr().id()) {
        ok[0] = false;
        return;
      }
      String domain = index.get().expr().call().args().get(1).constant().stringValue();
      var use = index.get().parent();
      if (use.isEmpty()) {
        ok[0] = false;
        return;
      }
      CelExpr u = use.get().expr();
      if (u.getKind() == CelExpr.ExprKind.Kind.SELECT) {
        out.add(new Reference(field, domain, u.select().field()));
      } else if (isConstantIndex(u) && u.call().args().get(0).id() == index.get().expr().id()) {
        out.add(new Reference(field, domain, u.call().args().get(1).constant().stringValue()));
      } else if (u.getKind() == CelExpr.ExprKind.Kind.CALL && u.call().function().equals("@in") && u.call().args().size() == 2
          && u.call().args().get(1).id() == index.get().expr().id()
          && u.call().args().get(0).getKind() == CelExpr.ExprKind.Kind.CONSTANT
          && u.call().args().get(0).constant().getKind() == dev.cel.common.ast.CelConstant.Kind.STRING_VALUE) {
        out.add(new Reference(field, domain, u.call().args().get(0).constant().stringValue()));
      } else {
        ok[0] = false;
      }
    });
    return ok[0] ? List.copyOf(new java.util.LinkedHashSet<>(out)) : null;
  }

  /** Every constant domain and name this selector looks up, in the order they appear. */
  public List<Reference> references() {
    return references;
  }

  private static List<Reference> references(CelAbstractSyntaxTree ast) {
    List<Reference> out = new ArrayList<>();
    CelNavigableAst.fromAst(ast).getRoot().allNodes().forEach(node -> {
      CelExpr e = node.expr();
      Optional<Reference> domain = domainLookup(e);
      if (domain.isPresent()) {
        out.add(domain.get());
        return;
      }
      if (e.getKind() == CelExpr.ExprKind.Kind.SELECT) {
        domainLookup(e.select().operand()).ifPresent(d -> out.add(new Reference(d.map(), d.domain(), e.select().field())));
      } else if (isConstantIndex(e)) {
        domainLookup(e.call().args().get(0)).ifPresent(d ->
            out.add(new Reference(d.map(), d.domain(), e.call().args().get(1).constant().stringValue())));
      } else if (e.getKind() == CelExpr.ExprKind.Kind.CALL && e.call().function().equals("@in")
          && e.call().args().size() == 2 && e.call().args().get(0).getKind() == CelExpr.ExprKind.Kind.CONSTANT
          && e.call().args().get(0).constant().getKind() == dev.cel.common.ast.CelConstant.Kind.STRING_VALUE) {
        // "name" in device.attributes["domain"]: a test of a name, which a typo makes false rather than an error.
        domainLookup(e.call().args().get(1)).ifPresent(d ->
            out.add(new Reference(d.map(), d.domain(), e.call().args().get(0).constant().stringValue())));
      }
    });
    return List.copyOf(out);
  }

  /** {@code device.attributes["domain"]} or {@code device.capacity["domain"]}. */
  private static Optional<Reference> domainLookup(CelExpr e) {
    if (!isConstantIndex(e)) {
      return Optional.empty();
    }
    CelExpr map = e.call().args().get(0);
    if (map.getKind() == CelExpr.ExprKind.Kind.SELECT && !map.select().testOnly()
        && map.select().operand().getKind() == CelExpr.ExprKind.Kind.IDENT
        && map.select().operand().ident().name().equals("device")
        && (map.select().field().equals("attributes") || map.select().field().equals("capacity"))) {
      return Optional.of(new Reference(map.select().field(), e.call().args().get(1).constant().stringValue(), null));
    }
    return Optional.empty();
  }

  private static boolean isConstantIndex(CelExpr e) {
    return e.getKind() == CelExpr.ExprKind.Kind.CALL && e.call().function().equals("_[_]") && e.call().args().size() == 2
        && e.call().args().get(1).getKind() == CelExpr.ExprKind.Kind.CONSTANT
        && e.call().args().get(1).constant().getKind() == dev.cel.common.ast.CelConstant.Kind.STRING_VALUE;
  }

  public String expression() {
    return expression;
  }

  public long estimatedCost() {
    return estimatedCost;
  }

  /** Evaluates against a {@link DeviceVariable}; never throws for a CEL error. */
  public SelectorResult evaluate(Map<String, Object> device) {
    return evaluate(device, true);
  }

  /** {@link #evaluate(Map)}; with {@code observe} false without the values of the device paths it read. */
  public SelectorResult evaluate(Map<String, Object> device, boolean observe) {
    Tracker tracker = new Tracker(observe);
    try {
      Object result = program.trace(Map.of("device", device), tracker::onEvaluated);
      if (result instanceof Boolean b) {
        return new SelectorResult(b ? SelectorResult.Outcome.MATCH : SelectorResult.Outcome.NO_MATCH, null,
            tracker.observed(), tracker.cost);
      }
      return new SelectorResult(SelectorResult.Outcome.ERROR, "CEL result of type "
          + DraCelEnvironment.typeName(result) + " could not be converted to bool", tracker.observed(), tracker.cost);
    } catch (CelEvaluationException e) {
      String message = e.getCause() instanceof CostLimitExceeded ? e.getCause().getMessage() : runtimeMessage(e);
      return new SelectorResult(SelectorResult.Outcome.ERROR, message, tracker.observed(), tracker.cost);
    } catch (CostLimitExceeded e) {
      return new SelectorResult(SelectorResult.Outcome.ERROR, e.getMessage(), tracker.observed(), tracker.cost);
    } catch (RuntimeException | StackOverflowError e) {
      // cel-java signals a few failures (deep recursion, internal type mismatches) without wrapping them.
      return new SelectorResult(SelectorResult.Outcome.ERROR, "evaluation failed: " + e, tracker.observed(), tracker.cost);
    }
  }

  /** cel-java says "evaluation error at <input>:OFFSET: msg"; show the position as line and column. */
  private String runtimeMessage(CelEvaluationException e) {
    String msg = String.valueOf(e.getMessage());
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("^evaluation error at <input>:(\\d+): (.*)$",
        java.util.regex.Pattern.DOTALL).matcher(msg);
    if (!m.matches()) {
      return msg;
    }
    int offset = Integer.parseInt(m.group(1));
    int line = 1;
    int column = 1;
    for (int i = 0; i < Math.min(offset, expression.length()); i++) {
      if (expression.charAt(i) == '\n') {
        line++;
        column = 1;
      } else {
        column++;
      }
    }
    return "line " + line + ", column " + column + ": " + m.group(2);
  }

  private final class Tracker {
    long cost;
    final Map<String, String> values = new LinkedHashMap<>();
    final boolean observe;

    Tracker(boolean observe) {
      this.observe = observe;
    }

    void onEvaluated(CelExpr expr, Object result) {
      cost += 1 + sizeCost(result);
      if (cost > costLimit) {
        throw new CostLimitExceeded("operation cancelled: actual cost limit exceeded (" + costLimit + ")");
      }
      String path = observe ? devicePaths.get(expr.id()) : null;
      if (path != null && values.size() < 64) {
        values.putIfAbsent(path, Values.render(result));
      }
    }

    List<SelectorResult.Observed> observed() {
      List<SelectorResult.Observed> out = new ArrayList<>();
      values.forEach((p, v) -> out.add(new SelectorResult.Observed(p, v)));
      return out;
    }
  }

  private static long sizeCost(Object v) {
    if (v instanceof String s) {
      return s.length() / 10;
    } else if (v instanceof Collection<?> c) {
      return c.size() / 10;
    } else if (v instanceof Map<?, ?> m && !(v instanceof DeviceVariable.DomainMap)) {
      return m.size() / 10;
    }
    return 0;
  }

  /** Thrown from the evaluation listener to stop a selector at the cost limit. */
  static final class CostLimitExceeded extends RuntimeException {
    private static final long serialVersionUID = 1L;

    CostLimitExceeded(String message) {
      super(message, null, false, false);
    }
  }

  /** Only the outermost path of a chain is kept: {@code device.attributes["d"].x}, not {@code device.attributes}. */
  private static Map<Long, String> devicePaths(CelAbstractSyntaxTree ast) {
    Map<Long, String> all = new HashMap<>();
    Map<Long, Long> parentOf = new HashMap<>();
    CelNavigableAst.fromAst(ast).getRoot().allNodes().forEach(node -> {
      CelExpr e = node.expr();
      render(e).ifPresent(text -> all.put(e.id(), text));
      node.parent().ifPresent(p -> parentOf.put(e.id(), p.expr().id()));
    });
    Map<Long, String> outermost = new HashMap<>();
    all.forEach((id, text) -> {
      Long parent = parentOf.get(id);
      if (parent == null || !all.containsKey(parent)) {
        if (!text.equals("device")) {
          outermost.put(id, text);
        }
      }
    });
    return outermost;
  }

  private static Optional<String> render(CelExpr e) {
    switch (e.getKind()) {
      case IDENT:
        return e.ident().name().equals("device") ? Optional.of("device") : Optional.empty();
      case SELECT:
        if (e.select().testOnly()) {
          return Optional.empty();
        }
        return render(e.select().operand()).map(op -> op + "." + e.select().field());
      case CALL:
        if (e.call().function().equals("_[_]") && e.call().args().size() == 2
            && e.call().args().get(1).getKind() == CelExpr.ExprKind.Kind.CONSTANT) {
          var key = e.call().args().get(1).constant();
          if (key.getKind() == dev.cel.common.ast.CelConstant.Kind.STRING_VALUE) {
            return render(e.call().args().get(0)).map(op -> op + "[\"" + key.stringValue() + "\"]");
          }
        }
        return Optional.empty();
      default:
        return Optional.empty();
    }
  }
}
