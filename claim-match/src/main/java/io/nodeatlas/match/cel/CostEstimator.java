package io.nodeatlas.match.cel;

import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.ast.CelExpr;

/**
 * A worst-case cost estimate of a selector, checked against {@link DraCelEnvironment#MAX_COST} the way the
 * API server rejects selectors that are "too complex" before they are stored. cel-java has no cost
 * estimator, so this is ours and deliberately simple: every node costs 1, creating a list or map costs
 * 10 plus its elements, and a comprehension costs its loop body times the largest size its range can have
 * — a literal's own size, 32 for the per-device attribute and capacity maps (ResourceSlice allows 32
 * attributes and capacities per device), 64 for anything else (an attribute value is at most 64 bytes).
 * It follows cel-go's estimator in shape, not to the unit.
 */
final class CostEstimator {

  /** ResourceSliceMaxAttributesAndCapacitiesPerDevice. */
  static final long DEVICE_MAP_SIZE = 32;
  /** DeviceAttributeMaxValueLength: the size bound of any other value reachable from {@code device}. */
  static final long OTHER_SIZE = 64;

  private CostEstimator() {}

  static long estimate(CelAbstractSyntaxTree ast) {
    return cost(ast.getExpr(), 0);
  }

  private static long cost(CelExpr e, int depth) {
    if (depth > 500) {
      return DraCelEnvironment.MAX_COST + 1;
    }
    return switch (e.getKind()) {
      case CONSTANT, IDENT, NOT_SET -> 1;
      case SELECT -> 1 + cost(e.select().operand(), depth + 1);
      case CALL -> {
        long c = 1;
        if (e.call().target().isPresent()) {
          c = add(c, cost(e.call().target().get(), depth + 1));
        }
        for (CelExpr arg : e.call().args()) {
          c = add(c, cost(arg, depth + 1));
        }
        yield c;
      }
      case LIST -> {
        long c = 10;
        for (CelExpr el : e.list().elements()) {
          c = add(c, cost(el, depth + 1));
        }
        yield c;
      }
      case MAP -> {
        long c = 10;
        for (var entry : e.map().entries()) {
          c = add(c, add(cost(entry.key(), depth + 1), cost(entry.value(), depth + 1)));
        }
        yield c;
      }
      case STRUCT -> {
        long c = 10;
        for (var entry : e.struct().entries()) {
          c = add(c, cost(entry.value(), depth + 1));
        }
        yield c;
      }
      case COMPREHENSION -> {
        var comp = e.comprehension();
        long body = add(cost(comp.loopCondition(), depth + 1), cost(comp.loopStep(), depth + 1));
        long c = add(cost(comp.iterRange(), depth + 1), cost(comp.accuInit(), depth + 1));
        c = add(c, multiply(maxSize(comp.iterRange()), body));
        yield add(c, cost(comp.result(), depth + 1));
      }
    };
  }

  private static long maxSize(CelExpr range) {
    return switch (range.getKind()) {
      case LIST -> range.list().elements().size();
      case MAP -> range.map().entries().size();
      case COMPREHENSION -> maxSize(range.comprehension().iterRange());
      default -> rootedAtDeviceMaps(range) ? DEVICE_MAP_SIZE : OTHER_SIZE;
    };
  }

  /** {@code device.attributes}, {@code device.capacity} or one of their per-domain maps. */
  private static boolean rootedAtDeviceMaps(CelExpr e) {
    if (e.getKind() == CelExpr.ExprKind.Kind.SELECT) {
      CelExpr operand = e.select().operand();
      String field = e.select().field();
      return operand.getKind() == CelExpr.ExprKind.Kind.IDENT && operand.ident().name().equals("device")
          && (field.equals("attributes") || field.equals("capacity"));
    }
    if (e.getKind() == CelExpr.ExprKind.Kind.CALL && e.call().function().equals("_[_]") && e.call().args().size() == 2) {
      return rootedAtDeviceMaps(e.call().args().get(0));
    }
    return false;
  }

  private static long add(long a, long b) {
    long r = a + b;
    return r < 0 ? Long.MAX_VALUE : r;
  }

  private static long multiply(long a, long b) {
    return b != 0 && a > Long.MAX_VALUE / b ? Long.MAX_VALUE : a * b;
  }
}
