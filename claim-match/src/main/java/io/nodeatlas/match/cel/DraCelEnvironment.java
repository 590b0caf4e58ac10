package io.nodeatlas.match.cel;

import com.google.common.collect.ImmutableCollection;
import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableSet;
import dev.cel.bundle.Cel;
import dev.cel.bundle.CelFactory;
import dev.cel.checker.CelStandardDeclarations;
import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.CelFunctionDecl;
import dev.cel.common.CelIssue;
import dev.cel.common.CelOptions;
import dev.cel.common.CelOverloadDecl;
import dev.cel.common.CelValidationException;
import dev.cel.common.types.CelType;
import dev.cel.common.types.CelTypeProvider;
import dev.cel.common.types.MapType;
import dev.cel.common.types.OpaqueType;
import dev.cel.common.types.SimpleType;
import dev.cel.common.types.StructType;
import dev.cel.extensions.CelExtensions;
import dev.cel.extensions.CelOptionalLibrary;
import dev.cel.parser.CelStandardMacro;
import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelFunctionBinding;
import dev.cel.runtime.CelStandardFunctions;
import dev.cel.runtime.RuntimeEquality;
import dev.cel.runtime.RuntimeHelpers;
import dev.cel.runtime.standard.EqualsOperator;
import dev.cel.runtime.standard.InOperator;
import dev.cel.runtime.standard.NotEqualsOperator;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The CEL environment the Kubernetes scheduler evaluates DRA device selectors in ({@code resource.k8s.io/v1} {@code CELDeviceSelector}; DRALIB
 * {@code cel/compile.go}), rebuilt on cel-java:
 *
 * <ul>
 *   <li>one variable, {@code device} of object type {@code kubernetes.DRADevice} with {@code driver},
 *       {@code attributes}, {@code capacity} and {@code allowMultipleAllocations};
 *   <li>attribute values typed as the API types them: int, bool, string, {@code kubernetes.Semver}, or a list of
 *       them (KEP-5491); capacities are {@code kubernetes.Quantity}; the {@code includes()} member function;
 *   <li>the base environment of k8s.io/apiserver {@code pkg/cel/environment/base.go} at compatibility version
 *       1.37: {@code cel.bind}, optional types, two-variable comprehensions, the strings extension (version 2),
 *       the lists extension (version 3), sets, and the apiserver's quantity, semver, regex ({@code find},
 *       {@code findAll}), lists (version 1), ip and cidr libraries ({@link KubernetesLibraries});
 *   <li>equality as cel-go runs it for these types: {@code 1 == "1"} is false, but comparing a Semver, a
 *       Quantity, an IP or a CIDR with anything else is a "no such overload" error ({@code MaybeNoSuchOverloadErr});
 *   <li>the API's limits: at most 10 KiB of expression text, an estimated and a run-time cost of at most
 *       1,000,000 ({@code CELSelectorExpressionMaxLength}, {@code CELSelectorExpressionMaxCost}); the estimate
 *       follows cel-go's with the apiserver's and DRA's estimators ({@link CostEstimator}).
 * </ul>
 *
 * <p>Not provided, because cel-java has no counterpart: the strings extension's {@code format} and the
 * apiserver's URL, format ({@code format.named}) and authorizer libraries (a DRA selector has no authorizer).
 * A selector using them fails to compile here with a message naming the function.
 *
 * <p>Instances are immutable and thread-safe; build one and reuse it.
 */
public final class DraCelEnvironment {

  /** {@code resource.CELSelectorExpressionMaxCost}. */
  public static final long MAX_COST = 1_000_000L;
  /** {@code resource.CELSelectorExpressionMaxLength}, in bytes. */
  public static final int MAX_EXPRESSION_BYTES = 10 * 1024;
  /**
   * The parser's recursion limit (cel-java {@code CelOptions.maxParseRecursionDepth}; cel-go's parser has
   * the same option, {@code parser.MaxRecursionDepth}). Nesting of parentheses, lists, maps, calls,
   * member selections and arithmetic chains beyond this is a compile error. Real selectors nest fewer
   * than 10 levels; the limit keeps the checker, our cost estimator and the evaluator on a small stack.
   */
  public static final int MAX_PARSE_DEPTH = 100;
  /**
   * Stack of the thread a selector is compiled on. cel-java's ANTLR parser recurses about ten frames
   * per nesting level before the recursion limit above is checked (the limit is applied while the parse
   * tree is converted), so the parse needs a stack in proportion to the nesting of the text: 16 MiB
   * parses the deepest 10 KiB expression with room to spare, while the launcher runs with 256 KiB.
   */
  static final long COMPILE_STACK_BYTES = 16L * 1024 * 1024;

  static final OpaqueType SEMVER = OpaqueType.create("kubernetes.Semver");
  static final OpaqueType QUANTITY = OpaqueType.create("kubernetes.Quantity");

  static final CelType ATTRIBUTES = MapType.create(SimpleType.STRING, MapType.create(SimpleType.STRING, SimpleType.DYN));
  static final CelType CAPACITY = MapType.create(SimpleType.STRING, MapType.create(SimpleType.STRING, QUANTITY));

  static final StructType DEVICE = StructType.create("kubernetes.DRADevice",
      ImmutableSet.of("driver", "attributes", "capacity", "allowMultipleAllocations"),
      field -> switch (field) {
        case "driver" -> Optional.of(SimpleType.STRING);
        case "attributes" -> Optional.of(ATTRIBUTES);
        case "capacity" -> Optional.of(CAPACITY);
        case "allowMultipleAllocations" -> Optional.of(SimpleType.BOOL);
        default -> Optional.empty();
      });

  /** Functions of the apiserver CEL libraries this environment does not provide, for a clearer compile error. */
  private static final List<String> KUBERNETES_LIBRARY_FUNCTIONS = List.of(
      "url", "isURL", "getScheme", "getHost", "getHostname", "getPort", "getEscapedPath", "getQuery", "format",
      "format.named", "authorizer");

  /** cel-go's strings extension at version 2 (base.go since 1.29): everything but {@code reverse} (version 3). */
  private static final dev.cel.extensions.CelStringExtensions STRINGS_V2 = CelExtensions.strings(
      java.util.EnumSet.complementOf(java.util.EnumSet.of(dev.cel.extensions.CelStringExtensions.Function.REVERSE)));

  /** The parser's (ANTLR's) messages, which cel-go reports as "Syntax error: ...". */
  private static final java.util.regex.Pattern SYNTAX_ERROR = java.util.regex.Pattern.compile(
      "(extraneous input|mismatched input|no viable alternative|token recognition error|missing .* at)");

  private final Cel cel;
  private final long costLimit;

  public DraCelEnvironment() {
    this(MAX_COST);
  }

  /** An environment with another run-time cost limit (the scheduler's default is {@link #MAX_COST}). */
  public DraCelEnvironment(long costLimit) {
    this.costLimit = costLimit;
    CelOptions options = CelOptions.current()
        .enableOptionalSyntax(true)
        .maxParseRecursionDepth(MAX_PARSE_DEPTH)
        // The cost limit stops long loops first; this only bounds a single comprehension.
        .comprehensionMaxIterations((int) Math.min(Integer.MAX_VALUE, costLimit))
        .build();
    RuntimeEquality equality = RuntimeEquality.create(RuntimeHelpers.create(), options);
    CelStandardFunctions standard = CelStandardFunctions.newBuilder()
        .filterFunctions((function, overload) -> overload != InOperator.InOverload.IN_MAP
            && overload != EqualsOperator.EqualsOverload.EQUALS
            && overload != NotEqualsOperator.NotEqualsOverload.NOT_EQUALS)
        .build();
    CelTypeProvider types = new CelTypeProvider() {
      @Override
      public ImmutableCollection<CelType> types() {
        return ImmutableList.of(DEVICE, SEMVER, QUANTITY, KubernetesLibraries.IP, KubernetesLibraries.CIDR);
      }

      @Override
      public Optional<CelType> findType(String name) {
        return types().stream().filter(t -> t.name().equals(name)).findFirst();
      }
    };
    this.cel = CelFactory.standardCelBuilder()
        .setOptions(options)
        .setStandardMacros(CelStandardMacro.STANDARD_MACROS)
        .setStandardEnvironmentEnabled(false)
        .setStandardDeclarations(CelStandardDeclarations.newBuilder().build())
        .setStandardFunctions(standard)
        .setTypeProvider(types)
        .addVar("device", DEVICE)
        .addCompilerLibraries(CelExtensions.bindings(), STRINGS_V2, CelExtensions.lists(),
            CelExtensions.sets(options), CelExtensions.comprehensions(), CelOptionalLibrary.INSTANCE)
        .addRuntimeLibraries(STRINGS_V2, CelExtensions.lists(), CelExtensions.sets(options),
            CelExtensions.comprehensions(), CelOptionalLibrary.INSTANCE)
        .addFunctionDeclarations(declarations())
        .addFunctionDeclarations(KubernetesLibraries.declarations())
        .addFunctionBindings(equalityBindings(equality))
        .addFunctionBindings(KubernetesLibraries.bindings((a, b) -> lenientEquals(equality, a, b)))
        .addFunctionBindings(semverBindings())
        .addFunctionBindings(quantityBindings())
        .build();
  }

  /**
   * Compiles a selector as the API server validates it; the exception carries the first error's position.
   */
  public CompiledSelector compile(String expression) throws SelectorCompileException {
    return compile(expression, CostEstimator.DRA);
  }

  /** {@link #compile(String)} with another size estimator (upstream's library tests bound strings at 12). */
  CompiledSelector compile(String expression, CostEstimator.SizeBounds bounds) throws SelectorCompileException {
    int bytes = expression.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > MAX_EXPRESSION_BYTES) {
      throw new SelectorCompileException("expression is " + bytes + " bytes, the API allows at most "
          + MAX_EXPRESSION_BYTES, 0, 0);
    }
    CelAbstractSyntaxTree ast = parseAndCheck(expression);
    CelType result = ast.getResultType();
    if (!result.equals(SimpleType.BOOL) && !result.equals(SimpleType.DYN) && !result.equals(SimpleType.ANY)) {
      throw new SelectorCompileException("must evaluate to bool or the unknown type, not " + result.name(), 1, 1);
    }
    long estimate;
    try {
      estimate = CostEstimator.estimate(ast, bounds);
    } catch (RuntimeException e) {
      // An AST shape the estimator does not know is a verdict on the input, not a crash.
      throw new SelectorCompileException("cost estimation failed: " + e, 1, 1);
    }
    if (estimate > MAX_COST) {
      throw new SelectorCompileException("too complex: estimated cost " + estimate + " exceeds the limit of "
          + MAX_COST, 1, 1);
    }
    try {
      return new CompiledSelector(expression, ast, cel.createProgram(ast), costLimit, estimate);
    } catch (dev.cel.common.CelException e) {
      throw new SelectorCompileException("program instantiation failed: " + e.getMessage(), 0, 0);
    }
  }

  /** The worst-case cost of any expression of this environment, whatever its result type. */
  long estimate(String expression, CostEstimator.SizeBounds bounds) throws SelectorCompileException {
    return CostEstimator.estimate(parseAndCheck(expression), bounds);
  }

  /** cel-java's parse and type check, on a thread with {@link #COMPILE_STACK_BYTES} of stack. */
  private CelAbstractSyntaxTree parseAndCheck(String expression) throws SelectorCompileException {
    Object[] outcome = new Object[1];
    Thread worker = new Thread(null, () -> {
      try {
        outcome[0] = cel.compile(expression).getAst();
      } catch (CelValidationException e) {
        outcome[0] = compileError(expression, e);
      } catch (RuntimeException e) {
        // cel-java reports some pathological inputs as unchecked exceptions.
        outcome[0] = new SelectorCompileException("compilation failed: " + e.getMessage(), 0, 0);
      } catch (StackOverflowError e) {
        int[] at = ExpressionNesting.deepest(expression);
        outcome[0] = new SelectorCompileException("compilation failed: line " + at[0] + ", column " + at[1]
            + ": expression nested too deeply to compile", at[0], at[1]);
      }
    }, "cel-compile", COMPILE_STACK_BYTES);
    worker.setDaemon(true);
    worker.start();
    try {
      worker.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SelectorCompileException("compilation interrupted", 0, 0);
    }
    if (outcome[0] instanceof SelectorCompileException e) {
      throw e;
    }
    if (!(outcome[0] instanceof CelAbstractSyntaxTree ast)) {
      // An Error other than a stack overflow (out of memory) ended the worker: not a verdict on the input.
      throw new IllegalStateException("CEL compilation of a selector did not complete");
    }
    return ast;
  }

  private static SelectorCompileException compileError(String expression, CelValidationException e) {
    List<CelIssue> issues = e.getErrors();
    int line = 0;
    int column = 0;
    String first = e.getMessage();
    if (!issues.isEmpty()) {
      line = issues.get(0).getSourceLocation().getLine();
      column = issues.get(0).getSourceLocation().getColumn() + 1;
      first = issues.get(0).getMessage();
    }
    if (first.startsWith("Expression recursion limit exceeded")) {
      // cel-java reports this limit at line 1, column 0 whatever the text; point at the deepest nesting.
      int[] at = ExpressionNesting.deepest(expression);
      line = at[0];
      column = at[1];
      first = "expression nested deeper than the limit of " + MAX_PARSE_DEPTH + " levels (cel-java "
          + "maxParseRecursionDepth); the deepest nesting starts here";
    }
    if (SYNTAX_ERROR.matcher(first).lookingAt()) {
      first = "Syntax error: " + first; // cel-go's wording for a parse error
    }
    StringBuilder message = new StringBuilder("compilation failed: ");
    message.append(line > 0 ? "line " + line + ", column " + column + ": " : "").append(first);
    for (String fn : KUBERNETES_LIBRARY_FUNCTIONS) {
      if (first.contains("'" + fn + "'")) {
        message.append(" (").append(fn).append(" belongs to a CEL library of the Kubernetes base environment that "
            + "nodeatlas match does not provide)");
        break;
      }
    }
    oddCharacterAt(expression, line, column).ifPresent(message::append);
    if (issues.size() > 1) {
      message.append(" (and ").append(issues.size() - 1).append(" more)");
    }
    SelectorLint.correctedDomainSplit(expression).ifPresent(fixed ->
        message.append("; attributes are looked up by domain, then identifier; did you mean: ").append(fixed));
    return new SelectorCompileException(message.toString(), line, column);
  }

  /**
   * CEL identifiers are ASCII ({@code [_a-zA-Z][_a-zA-Z0-9]*}, CEL language definition), so a look-alike
   * or invisible character outside a string is a syntax error at that character: name it.
   */
  private static Optional<String> oddCharacterAt(String expression, int line, int column) {
    if (line <= 0 || column <= 0) {
      return Optional.empty();
    }
    String[] lines = expression.split("\n", -1);
    if (line > lines.length) {
      return Optional.empty();
    }
    String text = lines[line - 1];
    int index = text.offsetByCodePoints(0, Math.min(column - 1, text.codePointCount(0, text.length())));
    if (index >= text.length()) {
      return Optional.empty();
    }
    int cp = text.codePointAt(index);
    if (cp >= 0x20 && cp <= 0x7e) {
      return Optional.empty();
    }
    String looksLike = Lookalikes.skeleton(new String(Character.toChars(cp)));
    String name = Character.getName(cp);
    return Optional.of(String.format("; the character there is U+%04X %s", cp, name == null ? "(unnamed)" : name)
        + (looksLike.isEmpty() ? ", which is invisible" : looksLike.chars().allMatch(c -> c < 0x80)
            ? ", which looks like \"" + looksLike + "\"" : ""));
  }

  private static List<CelFunctionDecl> declarations() {
    CelType str = SimpleType.STRING;
    CelType bool = SimpleType.BOOL;
    CelType integer = SimpleType.INT;
    return List.of(
        CelFunctionDecl.newFunctionDeclaration("semver",
            CelOverloadDecl.newGlobalOverload("string_to_semver", SEMVER, str),
            CelOverloadDecl.newGlobalOverload("string_bool_to_semver", SEMVER, str, bool)),
        CelFunctionDecl.newFunctionDeclaration("isSemver",
            CelOverloadDecl.newGlobalOverload("is_semver_string", bool, str),
            CelOverloadDecl.newGlobalOverload("is_semver_string_bool", bool, str, bool)),
        CelFunctionDecl.newFunctionDeclaration("major", CelOverloadDecl.newMemberOverload("semver_major", integer, SEMVER)),
        CelFunctionDecl.newFunctionDeclaration("minor", CelOverloadDecl.newMemberOverload("semver_minor", integer, SEMVER)),
        CelFunctionDecl.newFunctionDeclaration("patch", CelOverloadDecl.newMemberOverload("semver_patch", integer, SEMVER)),
        CelFunctionDecl.newFunctionDeclaration("quantity", CelOverloadDecl.newGlobalOverload("string_to_quantity", QUANTITY, str)),
        CelFunctionDecl.newFunctionDeclaration("isQuantity", CelOverloadDecl.newGlobalOverload("is_quantity_string", bool, str)),
        // The library documents sign() as a method; one apiserver release declared it as a global function.
        CelFunctionDecl.newFunctionDeclaration("sign",
            CelOverloadDecl.newMemberOverload("quantity_sign", integer, QUANTITY),
            CelOverloadDecl.newGlobalOverload("quantity_sign_global", integer, QUANTITY)),
        CelFunctionDecl.newFunctionDeclaration("isGreaterThan",
            CelOverloadDecl.newMemberOverload("semver_is_greater_than", bool, SEMVER, SEMVER),
            CelOverloadDecl.newMemberOverload("quantity_is_greater_than", bool, QUANTITY, QUANTITY)),
        CelFunctionDecl.newFunctionDeclaration("isLessThan",
            CelOverloadDecl.newMemberOverload("semver_is_less_than", bool, SEMVER, SEMVER),
            CelOverloadDecl.newMemberOverload("quantity_is_less_than", bool, QUANTITY, QUANTITY)),
        CelFunctionDecl.newFunctionDeclaration("compareTo",
            CelOverloadDecl.newMemberOverload("semver_compare_to", integer, SEMVER, SEMVER),
            CelOverloadDecl.newMemberOverload("quantity_compare_to", integer, QUANTITY, QUANTITY)),
        CelFunctionDecl.newFunctionDeclaration("asApproximateFloat",
            CelOverloadDecl.newMemberOverload("quantity_get_float", SimpleType.DOUBLE, QUANTITY)),
        CelFunctionDecl.newFunctionDeclaration("asInteger", CelOverloadDecl.newMemberOverload("quantity_get_int", integer, QUANTITY)),
        CelFunctionDecl.newFunctionDeclaration("isInteger", CelOverloadDecl.newMemberOverload("quantity_is_integer", bool, QUANTITY)),
        CelFunctionDecl.newFunctionDeclaration("add",
            CelOverloadDecl.newMemberOverload("quantity_add", QUANTITY, QUANTITY, QUANTITY),
            CelOverloadDecl.newMemberOverload("quantity_add_int", QUANTITY, QUANTITY, integer)),
        CelFunctionDecl.newFunctionDeclaration("sub",
            CelOverloadDecl.newMemberOverload("quantity_sub", QUANTITY, QUANTITY, QUANTITY),
            CelOverloadDecl.newMemberOverload("quantity_sub_int", QUANTITY, QUANTITY, integer)));
  }

  private static List<CelFunctionBinding> equalityBindings(RuntimeEquality equality) {
    return List.of(
        CelFunctionBinding.from("equals", Object.class, Object.class, (a, b) -> typedEquals(equality, a, b)),
        CelFunctionBinding.from("not_equals", Object.class, Object.class, (a, b) -> !typedEquals(equality, a, b)),
        CelFunctionBinding.from("in_map", Object.class, Map.class, (key, map) -> map.containsKey(key)));
  }

  private static boolean opaque(Object v) {
    return v instanceof SemverValue || v instanceof QuantityValue || v instanceof NetAddress || v instanceof NetPrefix;
  }

  /** cel-go's {@code Val.Equal(...) == True}: a type mismatch is simply not equal (lists, {@code includes}). */
  private static boolean lenientEquals(RuntimeEquality equality, Object a, Object b) {
    if (opaque(a) || opaque(b)) {
      return a != null && b != null && a.getClass() == b.getClass() && a.equals(b);
    }
    return equality.objectEquals(a, b);
  }

  private static boolean typedEquals(RuntimeEquality equality, Object a, Object b) throws CelEvaluationException {
    if (opaque(a) || opaque(b)) {
      if (a == null || b == null || a.getClass() != b.getClass()) {
        throw new CelEvaluationException("no such overload: " + typeName(a) + " == " + typeName(b));
      }
      return a.equals(b);
    }
    return equality.objectEquals(a, b);
  }

  /** The CEL type name of a runtime value, for error messages. */
  static String typeName(Object v) {
    if (v == null) {
      return "null";
    } else if (v instanceof SemverValue) {
      return "kubernetes.Semver";
    } else if (v instanceof QuantityValue) {
      return "kubernetes.Quantity";
    } else if (v instanceof NetAddress) {
      return "net.IP";
    } else if (v instanceof NetPrefix) {
      return "net.CIDR";
    } else if (v instanceof Long) {
      return "int";
    } else if (v instanceof Boolean) {
      return "bool";
    } else if (v instanceof String) {
      return "string";
    } else if (v instanceof Double) {
      return "double";
    } else if (v instanceof Map) {
      return "map";
    } else if (v instanceof List) {
      return "list";
    }
    return v.getClass().getSimpleName();
  }

  private static List<CelFunctionBinding> semverBindings() {
    return List.of(
        CelFunctionBinding.from("string_to_semver", String.class, s -> call(() -> SemverValue.parse(s))),
        CelFunctionBinding.from("string_bool_to_semver", String.class, Boolean.class,
            (s, normalize) -> call(() -> normalize ? SemverValue.parseNormalized(s) : SemverValue.parse(s))),
        CelFunctionBinding.from("is_semver_string", String.class, s -> SemverValue.isValid(s, false)),
        CelFunctionBinding.from("is_semver_string_bool", String.class, Boolean.class, SemverValue::isValid),
        CelFunctionBinding.from("semver_major", SemverValue.class, SemverValue::major),
        CelFunctionBinding.from("semver_minor", SemverValue.class, SemverValue::minor),
        CelFunctionBinding.from("semver_patch", SemverValue.class, SemverValue::patch),
        CelFunctionBinding.from("semver_is_greater_than", SemverValue.class, SemverValue.class, (a, b) -> a.compareTo(b) > 0),
        CelFunctionBinding.from("semver_is_less_than", SemverValue.class, SemverValue.class, (a, b) -> a.compareTo(b) < 0),
        CelFunctionBinding.from("semver_compare_to", SemverValue.class, SemverValue.class,
            (a, b) -> (long) Integer.signum(a.compareTo(b))));
  }

  private static List<CelFunctionBinding> quantityBindings() {
    return List.of(
        CelFunctionBinding.from("string_to_quantity", String.class, s -> call(() -> QuantityValue.parse(s))),
        CelFunctionBinding.from("is_quantity_string", String.class, QuantityValue::isValid),
        CelFunctionBinding.from("quantity_sign", QuantityValue.class, QuantityValue::sign),
        CelFunctionBinding.from("quantity_sign_global", QuantityValue.class, QuantityValue::sign),
        CelFunctionBinding.from("quantity_is_greater_than", QuantityValue.class, QuantityValue.class, (a, b) -> a.compareTo(b) > 0),
        CelFunctionBinding.from("quantity_is_less_than", QuantityValue.class, QuantityValue.class, (a, b) -> a.compareTo(b) < 0),
        CelFunctionBinding.from("quantity_compare_to", QuantityValue.class, QuantityValue.class,
            (a, b) -> (long) Integer.signum(a.compareTo(b))),
        CelFunctionBinding.from("quantity_get_float", QuantityValue.class, QuantityValue::asApproximateFloat),
        CelFunctionBinding.from("quantity_get_int", QuantityValue.class, q -> call(q::asInteger)),
        CelFunctionBinding.from("quantity_is_integer", QuantityValue.class, QuantityValue::isInteger),
        CelFunctionBinding.from("quantity_add", QuantityValue.class, QuantityValue.class, (a, b) -> call(() -> a.add(b))),
        CelFunctionBinding.from("quantity_add_int", QuantityValue.class, Long.class,
            (a, b) -> call(() -> a.add(QuantityValue.ofLong(b)))),
        CelFunctionBinding.from("quantity_sub", QuantityValue.class, QuantityValue.class, (a, b) -> call(() -> a.subtract(b))),
        CelFunctionBinding.from("quantity_sub_int", QuantityValue.class, Long.class,
            (a, b) -> call(() -> a.subtract(QuantityValue.ofLong(b)))));
  }

  private interface Step<T> {
    T get();
  }

  /** Library failures (a malformed version string, a fractional asInteger) become CEL evaluation errors. */
  private static <T> T call(Step<T> step) throws CelEvaluationException {
    try {
      return step.get();
    } catch (IllegalArgumentException | ArithmeticException e) {
      throw new CelEvaluationException(e.getMessage());
    }
  }
}
