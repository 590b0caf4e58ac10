package io.nodeatlas.match;

import io.nodeatlas.discovery.model.AttributeValue;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.Names;
import io.nodeatlas.match.MatchReport.CapacityConsumption;
import io.nodeatlas.match.MatchReport.AlternativeReport;
import io.nodeatlas.match.MatchReport.ClaimReport;
import io.nodeatlas.match.MatchReport.ClassReport;
import io.nodeatlas.match.MatchReport.ConstraintReport;
import io.nodeatlas.match.MatchReport.Consumed;
import io.nodeatlas.match.MatchReport.Rejection;
import io.nodeatlas.match.MatchReport.RequestReport;
import io.nodeatlas.match.MatchReport.SelectorReport;
import io.nodeatlas.match.cel.CompiledSelector;
import io.nodeatlas.match.cel.DeviceVariable;
import io.nodeatlas.match.cel.DraCelEnvironment;
import io.nodeatlas.match.cel.SelectorCompileException;
import io.nodeatlas.match.cel.SelectorLint;
import io.nodeatlas.match.cel.SelectorResult;
import io.nodeatlas.match.claims.ClaimInputException;
import io.nodeatlas.match.claims.ClaimModel.Claim;
import io.nodeatlas.match.claims.ClaimModel.DeviceClass;
import io.nodeatlas.match.claims.ClaimModel.DeviceSelection;
import io.nodeatlas.match.claims.ClaimModel.Documents;
import io.nodeatlas.match.claims.ClaimModel.Request;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Decides, for this node alone, which devices satisfy each DeviceClass and claim request and whether each
 * claim can be allocated as a whole. It follows the scheduler's structured allocator
 * (DRALIB {@code structured/internal/stable}):
 *
 * <ul>
 *   <li>a device is a candidate for a request when every selector of the request's DeviceClass and then
 *       every selector of the request evaluates to true, in that order, and it can serve the request's
 *       capacity requests ({@link CapacityDemand}: request policies, KEP-5075);
 *   <li>a CEL run-time error does not select the device; the scheduler aborts the whole allocation attempt
 *       with that error, so a request whose selectors error on any device of this node is reported as
 *       failing with the error (the outcome would depend on which device the scheduler visits first);
 *   <li>{@code ExactCount} needs {@code count} distinct devices, {@code All} needs every candidate and at
 *       least one; {@code firstAvailable} subrequests are tried in order;
 *   <li>a device serves one request of a claim unless it allows multiple allocations (a fact of the device,
 *       {@code resource.k8s.io/v1} {@code Device.allowMultipleAllocations}), and then only while what the
 *       requests consume of each capacity fits it together;
 *   <li>{@code matchAttribute} needs one common value, {@code distinctAttribute} pairwise different values,
 *       among the devices of the requests it names (all requests when none are named); a device without the
 *       attribute cannot take part.
 * </ul>
 *
 * <p>Partitionable devices (KEP-4815): a device that {@code consumesCounters} can be allocated only while
 * what it consumes of each counter fits what its pool's counter set ({@code sharedCounters}) has left after
 * the devices already allocated, in this claim and the claims before it; so two MIG partitions that share a
 * memory slice, or a partition and its whole GPU, never go together. A device that names a counter set or
 * counter the node does not publish is never allocated, as the scheduler refuses it.
 *
 * <p>Several claims in one run are allocated in input order against the one node, as the scheduler
 * allocates claims one after the other: a claim that fits takes its devices before the next claim is
 * tried. An exclusive device then belongs to that claim alone; a shared device keeps serving later claims
 * while what they consume ({@code consumedCapacity} of the allocation result, KEP-5075) fits its
 * capacities together with what earlier claims consume. A claim that does not fit takes nothing.
 *
 * <p>The search is first-fit in device-name order with backtracking, bounded by {@link #SEARCH_BUDGET}
 * steps; a claim that needs more is reported as undecided rather than guessed.
 */
public final class ClaimMatcher {

  /** Backtracking steps per claim before giving up. */
  static final int SEARCH_BUDGET = 200_000;
  /** Longest selector echoed under its compile error. */
  static final int ECHO_MAX_CHARS = 200;

  private final DraCelEnvironment environment;
  private final Amounts amounts;
  private final boolean detail;
  /** The documents of the last run, their classes and compiled checks: a fleet run matches them on every node. */
  private Prepared prepared;

  /**
   * {@code complete}: set once a match of these documents ran to its end, every alternative's checks then
   * compiled; {@code checksInUse} and {@code constraintAttributes} are what {@link #shape} reads.
   */
  private record Prepared(Documents documents, Map<String, DeviceClass> classes,
      Map<String, List<CompiledSelector>> classSelectors, Map<DeviceSelection, Checks> checks, boolean complete,
      List<Checks> checksInUse, List<String> constraintAttributes) {}

  /** Compiled selectors by expression: a fleet run matches the same documents on every node. */
  private final Map<String, CompiledSelector> compiled = new HashMap<>();
  /**
   * Without detail: results by selector and the device facts it reads ({@link CompiledSelector#projection()}),
   * shared by every device and node with the same facts. Bounded; cleared when full.
   */
  private final Map<List<Object>, SelectorResult> shared = new HashMap<>();
  static final int SHARED_MAX = 200_000;

  /** Our devices all belong to one DRA driver, {@link Names#DRIVER}, whose name is also our attribute domain. */
  public ClaimMatcher(DraCelEnvironment environment) {
    this(environment, Amounts.EXACT);
  }

  /** A matcher whose messages write amounts of capacity in {@code amounts}' style. */
  public ClaimMatcher(DraCelEnvironment environment, Amounts amounts) {
    this(environment, amounts, true);
  }

  /**
   * With {@code detail} false, only the verdicts: no DeviceClass reports, selector reports, hints or values
   * observed during evaluation (the fleet view keeps nothing else, and they cost most of a node's time).
   */
  public ClaimMatcher(DraCelEnvironment environment, Amounts amounts, boolean detail) {
    this.environment = environment;
    this.amounts = amounts;
    this.detail = detail;
  }

  /**
   * Matches the documents against the node's devices. Invalid selectors and references to DeviceClasses
   * that are not in the input are input errors (exit status 2).
   */
  public MatchReport match(String node, List<Device> nodeDevices, Documents documents) throws ClaimInputException {
    return match(node, Inventory.ours(nodeDevices), documents);
  }

  /**
   * Matches the documents against one node's {@code inventory}: each device evaluated as a device of its
   * own driver, tainted devices only for requests that tolerate their taints, and what allocated claims
   * already hold not available (exclusive devices) or consumed (shared capacity).
   */
  public MatchReport match(String node, Inventory inventory, Documents documents) throws ClaimInputException {
    List<Device> devices = inventory.devices().stream().sorted(Comparator.comparing(Device::name)).toList();
    Map<String, Device> byName = new HashMap<>();
    devices.forEach(d -> byName.put(d.name(), d));
    Evaluations evaluations = new Evaluations(byName, inventory, () -> published(devices), detail, detail ? null : shared);
    if (prepared == null || prepared.documents() != documents) {
      Map<String, List<CompiledSelector>> classSelectors = new TreeMap<>();
      for (DeviceClass c : documents.deviceClasses()) {
        classSelectors.put(c.name(), compileAll(c.selectors(), c.origin() + " DeviceClass " + c.name()));
      }
      prepared = new Prepared(documents, documents.classesByName(), classSelectors, new java.util.IdentityHashMap<>(),
          false, List.of(), List.of());
    }
    Map<String, DeviceClass> classes = prepared.classes();
    Map<String, List<CompiledSelector>> classSelectors = prepared.classSelectors();

    List<ClassReport> classReports = new ArrayList<>();
    for (DeviceClass c : detail ? documents.deviceClasses() : List.<DeviceClass>of()) {
      List<CompiledSelector> selectors = classSelectors.get(c.name());
      List<String> matching = new ArrayList<>();
      for (Device d : devices) {
        if (selectors.stream().allMatch(s -> evaluations.result(s, d.name()).matched())) {
          matching.add(d.name());
        }
      }
      classReports.add(new ClassReport(c.name(), c.origin().toString(), matching,
          selectorReports("DeviceClass " + c.name(), selectors, devices, evaluations)));
    }

    List<ClaimReport> claimReports = new ArrayList<>();
    Ledger ledger = new Ledger(Counters.of(devices));
    ledger.preload(inventory, devices);
    for (Claim claim : documents.claims()) {
      claimReports.add(matchClaim(claim, devices, classes, classSelectors, evaluations, ledger, inventory.taints()));
    }
    if (!prepared.complete()) {
      java.util.Set<String> named = new java.util.LinkedHashSet<>();
      documents.claims().forEach(c -> c.constraints().forEach(k -> named.add(k.attribute())));
      prepared = new Prepared(documents, classes, classSelectors, prepared.checks(), true,
          List.copyOf(prepared.checks().values()), List.copyOf(named));
    }
    return new MatchReport(node, classReports, claimReports);
  }

  /**
   * What of {@code inventory} the claim verdicts of {@link #match(String, Inventory, Documents)} read for
   * {@code documents}, as a value: per device in name order its name, driver, taints, capacities, request
   * policies, {@code allowMultipleAllocations}, counters, the results of the selectors the requests check, as
   * they are checked (so whatever of the device the CEL environment exposes), and the attributes the
   * constraints name; then what allocated claims hold, without the claims' names (they reach only the
   * failure sentences, which the caller checks). Two inventories of equal shape get equal verdicts.
   * Null before these documents were matched once (their checks are compiled on the first node) or when a
   * selector errs on a device (the error's did-you-means read every name the node publishes).
   */
  public Object shape(Inventory inventory, Documents documents) {
    if (prepared == null || prepared.documents() != documents || !prepared.complete()) {
      return null;
    }
    List<Device> devices = inventory.devices().stream().sorted(Comparator.comparing(Device::name)).toList();
    Map<String, Device> byName = new HashMap<>();
    devices.forEach(d -> byName.put(d.name(), d));
    Evaluations evaluations = new Evaluations(byName, inventory, () -> published(devices), detail,
        detail ? null : shared);
    List<Checks> checks = prepared.checksInUse();
    List<String> attributes = prepared.constraintAttributes();
    List<Object> key = new ArrayList<>(2 + devices.size() * (8 + 2 * checks.size() + attributes.size())
        + 2 * inventory.held().size());
    key.add(devices.size());
    for (Device d : devices) {
      key.add(d.name());
      key.add(inventory.driver(d.name()));
      key.add(inventory.taints().getOrDefault(d.name(), List.of()));
      key.add(d.capacity());
      key.add(d.requestPolicies());
      key.add(d.allowMultipleAllocations());
      key.add(d.sharedCounters());
      key.add(d.consumesCounters());
      for (Checks c : checks) {
        // As check() evaluates them: in order, up to the first that does not match.
        for (CompiledSelector s : c.selectors()) {
          SelectorResult r = evaluations.result(s, d.name());
          if (r.outcome() == SelectorResult.Outcome.ERROR) {
            return null;
          }
          key.add(r);
          if (!r.matched()) {
            break;
          }
        }
      }
      for (String a : attributes) {
        key.add(attribute(d, a).orElse(null));
      }
    }
    key.add(inventory.held().size());
    for (Inventory.Held h : inventory.held()) {
      key.add(h.device());
      key.add(h.consumed());
    }
    return key;
  }

  private ClaimReport matchClaim(Claim claim, List<Device> devices, Map<String, DeviceClass> classes,
      Map<String, List<CompiledSelector>> classSelectors, Evaluations evaluations, Ledger ledger,
      Map<String, List<Inventory.DeviceTaint>> taints) throws ClaimInputException {
    List<RequestReport> requestReports = new ArrayList<>();
    List<List<Candidates>> options = new ArrayList<>();
    for (Request request : claim.requests()) {
      List<AlternativeReport> alternatives = new ArrayList<>();
      List<Candidates> requestOptions = new ArrayList<>();
      for (DeviceSelection alt : request.alternatives()) {
        if (!classes.containsKey(alt.deviceClassName())) {
          throw new ClaimInputException(claim.origin() + " " + claim.displayName() + ": request " + request.name()
              + " uses DeviceClass \"" + alt.deviceClassName() + "\", which is not in the input files; add its "
              + "definition with -f");
        }
        Checks checks = prepared.checks().get(alt);
        String owner = checks != null && !detail ? null : claim.displayName() + " request " + request.name()
            + (request.firstAvailable() ? "/" + alt.name() : "");
        if (checks == null) {
          checks = new Checks(alt, classSelectors.get(alt.deviceClassName()),
              compileAll(alt.selectors(), claim.origin() + " " + owner));
          prepared.checks().put(alt, checks);
        }
        List<CompiledSelector> own = checks.own();
        List<String> matching = new ArrayList<>();
        List<Device> matchingDevices = new ArrayList<>();
        List<Rejection> rejected = new ArrayList<>();
        Map<String, CapacityDemand.Demand> demands = new HashMap<>();
        List<CapacityConsumption> consumption = new ArrayList<>();
        for (Device d : devices) {
          Rejection why = check(d, checks, evaluations, taints.getOrDefault(d.name(), List.of()));
          // The capacity demand is computed only for devices the selectors and taints let through.
          CapacityDemand.Demand demand = why == null ? CapacityDemand.of(d, alt.capacityRequests(), amounts) : null;
          if (why == null && demand.refused()) {
            why = new Rejection(d.name(), "capacity request " + demand.refusedAt(), null, SelectorResult.Outcome.NO_MATCH,
                demand.refusal(), List.of());
          }
          if (why != null) {
            rejected.add(why);
          } else {
            matching.add(d.name());
            matchingDevices.add(d);
            demands.put(d.name(), demand);
            demand.shares().stream().filter(sh -> !sh.asRequested()).forEach(sh -> consumption.add(new CapacityConsumption(
                d.name(), sh.capacity(), sh.requested() == null ? null : CapacityDemand.plain(sh.requested()),
                CapacityDemand.plain(sh.consumed()), sh.rule())));
          }
        }
        SortedCapacity capacity = new SortedCapacity(alt.capacityRequests());
        AlternativeReport report = new AlternativeReport(request.firstAvailable() ? alt.name() : request.name(),
            alt.deviceClassName(), alt.allocationMode().apiName(), alt.count(), capacity.rendered(), matching, rejected,
            selectorReports(owner, own, devices, evaluations), consumption);
        alternatives.add(report);
        requestOptions.add(new Candidates(request.name(), request.firstAvailable() ? alt.name() : null, alt,
            matchingDevices, report.errors(), demands, rejected));
      }
      requestReports.add(new RequestReport(request.name(), request.firstAvailable(), alternatives));
      options.add(requestOptions);
    }
    List<ConstraintReport> constraintReports = claim.constraints().stream()
        .map(c -> new ConstraintReport(c.kind().apiName(), c.attribute(), c.requests())).toList();

    AllocationSearch search = new AllocationSearch(options, claim.constraints(), ledger);
    Map<String, List<String>> allocation = new LinkedHashMap<>();
    List<Consumed> consumed = new ArrayList<>();
    String reason;
    List<String> reasons = List.of();
    boolean satisfiable;
    try {
      satisfiable = search.run(0);
      if (satisfiable) {
        search.chosen.forEach((key, list) -> allocation.put(key, list.stream().map(Device::name).toList()));
        consumed.addAll(ledger.commit(claim.kind() + " " + (claim.namespace() == null ? "" : claim.namespace() + "/")
            + claim.name(), search.chosen, search.chosenFrom));
        reason = null;
      } else {
        reasons = new FailureExplanation(search, ledger, amounts).reasons(claim);
        reason = String.join("; ", reasons);
      }
    } catch (AllocationSearch.SelectorErrorAbort e) {
      satisfiable = false;
      reason = e.getMessage();
    } catch (AllocationSearch.BudgetExhausted e) {
      satisfiable = false;
      reason = "undecided: no allocation found within " + SEARCH_BUDGET + " search steps";
    }
    return new ClaimReport(claim.kind(), claim.namespace(), claim.name(), claim.origin().toString(), satisfiable,
        reason, allocation, requestReports, constraintReports, consumed, reasons.isEmpty() && reason != null ? List.of(reason) : reasons);
  }

  /** An alternative's selectors, class first, with the words a rejection uses for each (built once per alternative). */
  private record Checks(DeviceSelection alt, List<CompiledSelector> own, List<CompiledSelector> selectors, String[] where) {
    Checks(DeviceSelection alt, List<CompiledSelector> fromClass, List<CompiledSelector> own) {
      this(alt, own, concat(fromClass, own), where(alt, fromClass.size(), own.size()));
    }

    private static List<CompiledSelector> concat(List<CompiledSelector> a, List<CompiledSelector> b) {
      List<CompiledSelector> out = new ArrayList<>(a);
      out.addAll(b);
      return out;
    }

    private static String[] where(DeviceSelection alt, int fromClass, int own) {
      String[] out = new String[fromClass + own];
      for (int i = 0; i < fromClass; i++) {
        out[i] = "DeviceClass " + alt.deviceClassName() + " selector #" + (i + 1);
      }
      for (int i = 0; i < own; i++) {
        out[fromClass + i] = "request selector #" + (i + 1);
      }
      return out;
    }
  }

  /** The first selector or taint check a device fails, as the scheduler checks them (class first); null when none. */
  private static Rejection check(Device d, Checks checks, Evaluations evaluations, List<Inventory.DeviceTaint> taints) {
    List<CompiledSelector> selectors = checks.selectors();
    for (int i = 0; i < selectors.size(); i++) {
      SelectorResult r = evaluations.result(selectors.get(i), d.name());
      if (!r.matched()) {
        return rejection(d, checks.where()[i], selectors.get(i), r, evaluations);
      }
    }
    for (Inventory.DeviceTaint taint : taints) {
      // KEP-5055: a NoSchedule or NoExecute taint keeps the device from requests that do not tolerate it.
      if (taint.blocksAllocation()
          && checks.alt().tolerations().stream().noneMatch(t -> t.tolerates(taint.key(), taint.value(), taint.effect()))) {
        return new Rejection(d.name(), "device taint " + taint, null, SelectorResult.Outcome.NO_MATCH,
            "is not tolerated by the request", List.of());
      }
    }
    return null;
  }

  private static Rejection rejection(Device d, String where, CompiledSelector s, SelectorResult r,
      Evaluations evaluations) {
    String detail = r.outcome() == SelectorResult.Outcome.ERROR
        ? r.error() + evaluations.lookalikes(s).stream().map(h -> "; " + h).reduce("", String::concat)
        : "evaluated to false";
    return new Rejection(d.name(), where, s.expression(), r.outcome(), detail, r.observed());
  }

  /** An attribute by fully qualified name; our driver's unqualified names count as its domain. */
  static Optional<AttributeValue> attribute(Device d, String qualifiedName) {
    AttributeValue v = d.attributes().get(qualifiedName);
    if (v == null && qualifiedName.startsWith(Names.DRIVER + "/")) {
      v = d.attributes().get(qualifiedName.substring(Names.DRIVER.length() + 1));
    }
    return Optional.ofNullable(v);
  }

  private List<CompiledSelector> compileAll(List<String> expressions, String owner) throws ClaimInputException {
    List<CompiledSelector> out = new ArrayList<>();
    for (int i = 0; i < expressions.size(); i++) {
      try {
        CompiledSelector known = compiled.get(expressions.get(i));
        if (known == null) {
          known = environment.compile(expressions.get(i));
          compiled.put(expressions.get(i), known);
        }
        out.add(known);
      } catch (SelectorCompileException e) {
        String expression = expressions.get(i);
        // A short selector is echoed with a caret under the error; a long one (up to 10 KiB) would
        // drown the message, which already names line and column.
        boolean echo = expression.length() <= ECHO_MAX_CHARS && expression.indexOf('\n') < 0;
        throw new ClaimInputException(owner + ": selector #" + (i + 1) + " is invalid: " + e.getMessage()
            + (echo ? "\n  " + expression + caret(expression, e.line(), e.column()) : ""));
      }
    }
    return out;
  }

  private static String caret(String expression, int line, int column) {
    if (line <= 0 || column <= 0) {
      return "";
    }
    String[] lines = expression.split("\n", -1);
    if (lines.length > 1) {
      return "\n  (line " + line + ", column " + column + ")";
    }
    return "\n  " + " ".repeat(Math.max(0, column - 1)) + "^";
  }

  private List<SelectorReport> selectorReports(String owner, List<CompiledSelector> selectors,
      List<Device> devices, Evaluations evaluations) {
    List<SelectorReport> out = new ArrayList<>();
    if (!detail) {
      return out;
    }
    for (int i = 0; i < selectors.size(); i++) {
      CompiledSelector s = selectors.get(i);
      int matching = 0;
      int errors = 0;
      for (Device d : devices) {
        SelectorResult r = evaluations.result(s, d.name());
        if (r.matched()) {
          matching++;
        } else if (r.outcome() == SelectorResult.Outcome.ERROR) {
          errors++;
        }
      }
      List<String> hints = new ArrayList<>(SelectorLint.warnings(s.expression()));
      hints.addAll(evaluations.lookalikes(s));
      out.add(new SelectorReport(owner, i + 1, s.expression(), matching, errors, hints));
    }
    return out;
  }

  /** Published names of this node: "attributes"/"capacity" → domain → names. */
  private static Map<String, Map<String, java.util.Set<String>>> published(List<Device> devices) {
    Map<String, Map<String, java.util.Set<String>>> out = new HashMap<>();
    for (Device d : devices) {
      d.attributes().keySet().forEach(k -> publish(out, "attributes", k));
      d.capacity().keySet().forEach(k -> publish(out, "capacity", k));
    }
    return out;
  }

  private static void publish(Map<String, Map<String, java.util.Set<String>>> out, String map, String key) {
    int slash = key.indexOf('/');
    String domain = slash < 0 ? Names.DRIVER : key.substring(0, slash);
    out.computeIfAbsent(map, k -> new TreeMap<>()).computeIfAbsent(domain, k -> new java.util.TreeSet<>())
        .add(key.substring(slash + 1));
  }

  /** Each (selector, device) pair is evaluated once per run. */
  private static final class Evaluations {
    private final Map<String, Device> devices;
    private final Inventory inventory;
    private final Map<String, Map<String, Object>> variables = new HashMap<>();
    private final java.util.function.Supplier<Map<String, Map<String, java.util.Set<String>>>> publishedNames;
    private Map<String, Map<String, java.util.Set<String>>> published;
    private final Map<CompiledSelector, Map<String, SelectorResult>> cache = new HashMap<>();
    private final Map<CompiledSelector, List<String>> lookalikes = new HashMap<>();
    private final boolean observe;
    private final Map<List<Object>, SelectorResult> shared;

    /** {@code published}: the node's names, gathered on the first did-you-mean (most runs never need one). */
    Evaluations(Map<String, Device> devices, Inventory inventory,
        java.util.function.Supplier<Map<String, Map<String, java.util.Set<String>>>> published,
        boolean observe, Map<List<Object>, SelectorResult> shared) {
      this.devices = devices;
      this.inventory = inventory;
      this.publishedNames = published;
      this.observe = observe;
      this.shared = shared;
    }

    /** Did-you-means for domains and names of {@code s} that only look like ones this node publishes. */
    List<String> lookalikes(CompiledSelector s) {
      if (published == null) {
        published = publishedNames.get();
      }
      return lookalikes.computeIfAbsent(s, k -> {
        java.util.Set<String> out = new java.util.LinkedHashSet<>();
        for (CompiledSelector.Reference r : k.references()) {
          Map<String, java.util.Set<String>> domains = published.getOrDefault(r.map(), Map.of());
          java.util.Set<String> names = domains.get(r.domain());
          if (names == null) {
            io.nodeatlas.match.cel.Lookalikes.didYouMean(r.domain(), domains.keySet())
                .ifPresent(h -> out.add("device." + r.map() + " domain: " + h));
          } else if (r.name() != null && !names.contains(r.name())) {
            io.nodeatlas.match.cel.Lookalikes.didYouMean(r.name(), names)
                .ifPresent(h -> out.add("device." + r.map() + "[\"" + r.domain() + "\"] name: " + h));
          }
        }
        return List.copyOf(out);
      });
    }

    SelectorResult result(CompiledSelector s, String device) {
      if (shared != null && s.projection().isPresent()) {
        // The fleet's shared results are this node's cache too: no map per selector and node, but for
        // results too costly to share.
        Map<String, SelectorResult> own = cache.get(s);
        SelectorResult known = own == null ? null : own.get(device);
        return known != null ? known : evaluate(s, device);
      }
      return cache.computeIfAbsent(s, k -> new HashMap<>()).computeIfAbsent(device, d -> evaluate(s, d));
    }

    private SelectorResult evaluate(CompiledSelector s, String name) {
      Optional<List<CompiledSelector.Reference>> projection = shared == null ? Optional.empty() : s.projection();
      if (projection.isEmpty()) {
        return s.evaluate(variable(name), observe);
      }
      Device d = devices.get(name);
      String driver = inventory.driver(name);
      List<Object> key = new ArrayList<>(projection.get().size() + 1);
      key.add(s);
      for (CompiledSelector.Reference r : projection.get()) {
        key.add(switch (r.map()) {
          case "driver" -> driver;
          case "allowMultipleAllocations" -> d.allowMultipleAllocations();
          default -> fact(d, driver, r);
        });
      }
      SelectorResult known = shared.get(key);
      if (known != null) {
        return known;
      }
      SelectorResult r = s.evaluate(variable(name), observe);
      if (s.shareable(r)) {
        if (shared.size() >= SHARED_MAX) {
          shared.clear();
        }
        shared.put(key, r);
      } else {
        cache.computeIfAbsent(s, k -> new HashMap<>()).put(name, r);
      }
      return r;
    }

    /** The attribute or capacity a reference reads, as DeviceVariable files it (no domain: the driver's). */
    private static Object fact(Device d, String driver, CompiledSelector.Reference r) {
      Map<String, ?> map = r.map().equals("attributes") ? d.attributes() : d.capacity();
      Object v = map.get(r.qualified());
      if (v == null && r.domain().equals(driver)) {
        v = map.get(r.name());
      }
      return v == null ? Absent.INSTANCE : v;
    }

    private Map<String, Object> variable(String name) {
      return variables.computeIfAbsent(name, n -> DeviceVariable.of(devices.get(n), inventory.driver(n)));
    }
  }

  /** A fact the device does not have, in a shared-result key. */
  private enum Absent { INSTANCE }

  private record SortedCapacity(Map<String, BigDecimal> requests) {
    java.util.SortedMap<String, String> rendered() {
      java.util.SortedMap<String, String> out = new TreeMap<>();
      requests.forEach((k, v) -> out.put(k, v.toPlainString()));
      return out;
    }
  }

}
