package io.nodeatlas.agent.shares;

import io.nodeatlas.discovery.model.Quantity;
import io.nodeatlas.discovery.share.DevicePlacer;
import io.nodeatlas.discovery.share.Placement;
import io.nodeatlas.discovery.share.Share;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Checks one allocation result against the device it names and places its share among the shares
 * already held (KEP-5075 consumable capacity). Pure: the device, the held shares and the result in,
 * a {@link Plan} out. Every refusal is a sentence for the kubelet, naming the request and device.
 *
 * <p>The rules:
 * <ul>
 *   <li>a device that does not allow multiple allocations takes no share: a result with a
 *       {@code shareID} or {@code consumedCapacity} for it is refused (the scheduler never writes one);
 *   <li>a result for a device that does allow them needs a {@code shareID} (the scheduler sets one on
 *       every such result), unless it is an admin-access result (KEP-5018), which takes nothing;
 *   <li>each {@code consumedCapacity} entry names a capacity of the device and is a quantity of at most
 *       64 characters, not negative, not more than the device's capacity, and keeps the family's own
 *       rules ({@link DevicePlacer#checkAmounts}). A capacity the result leaves out consumes its request
 *       policy's default (the scheduler's own rule), else nothing;
 *   <li>the shares of a device together never consume more than each capacity;
 *   <li>the device's family places the share ({@link DevicePlacer#place}).
 * </ul>
 */
public final class SharePlanner {

  static final int MAX_QUANTITY_CHARS = 64;
  static final int MAX_SHARE_ID_CHARS = 64;

  /** Exclusive (no share), a share placed, or refused with a reason. */
  public record Plan(boolean exclusive, Share share, String error) {
    static Plan exclusiveDevice() {
      return new Plan(true, null, null);
    }

    static Plan of(Share share) {
      return new Plan(false, share, null);
    }

    static Plan refused(String error) {
      return new Plan(false, null, error);
    }

    public boolean failed() {
      return error != null;
    }
  }

  private static String what(ShareAsk ask, SharedDevice device) {
    return "request " + ask.request() + " on device " + device.name();
  }

  /**
   * Places {@code ask} of claim {@code claimUid} on {@code device}, among {@code held} (the shares every
   * claim holds, this claim's earlier results included). A share this claim already holds under the
   * same id is answered as held.
   */
  public Plan plan(String claimUid, SharedDevice device, ShareAsk ask, List<Share> held) {
    boolean shared = device.device().allowMultipleAllocations();
    if (!shared) {
      // The common case (every exclusive device of every Prepare) makes no message it does not need.
      if (!ask.shareId().isEmpty() || !ask.consumedCapacity().isEmpty()) {
        return Plan.refused(what(ask, device) + ": the allocation gives it a share (shareID " + quote(ask.shareId()) + ", consumedCapacity "
            + ask.consumedCapacity().keySet() + "), but the device is not shared (it does not allow multiple allocations)");
      }
      return Plan.exclusiveDevice();
    }
    if (ask.adminAccess()) {
      return Plan.exclusiveDevice();
    }
    String what = what(ask, device);
    if (ask.shareId().isEmpty()) {
      return Plan.refused(what + ": the device is shared (it allows multiple allocations), but the allocation has no shareID");
    }
    if (!validShareId(ask.shareId())) {
      return Plan.refused(what + ": shareID " + quote(ask.shareId()) + " is not a UID (letters, digits and '-', at most "
          + MAX_SHARE_ID_CHARS + ")");
    }
    for (Share h : held) {
      if (h.sameAs(claimUid, device.name(), ask.shareId())) {
        return Plan.of(h);
      }
    }
    SortedMap<String, BigDecimal> consumed = new TreeMap<>();
    for (Map.Entry<String, String> e : ask.consumedCapacity().entrySet()) {
      if (!device.device().capacity().containsKey(e.getKey())) {
        return Plan.refused(what + ": consumedCapacity names " + quote(e.getKey()) + ", which is no capacity of the device");
      }
      String text = e.getValue();
      if (text == null || text.length() > MAX_QUANTITY_CHARS) {
        return Plan.refused(what + ": consumedCapacity " + e.getKey() + " is not a quantity");
      }
      BigDecimal v;
      try {
        v = Quantity.parse(text).toBigDecimal();
      } catch (IllegalArgumentException | ArithmeticException bad) {
        return Plan.refused(what + ": consumedCapacity " + e.getKey() + " = " + quote(text) + " is not a quantity");
      }
      consumed.put(e.getKey(), v);
    }
    device.device().requestPolicies().forEach((name, policy) -> consumed.putIfAbsent(name, policy.defaultValue().toBigDecimal()));
    for (Map.Entry<String, BigDecimal> e : consumed.entrySet()) {
      BigDecimal capacity = device.device().capacity().get(e.getKey()).toBigDecimal();
      if (e.getValue().signum() < 0) {
        return Plan.refused(what + ": consumedCapacity " + e.getKey() + " = " + plain(e.getValue()) + " is negative");
      }
      if (e.getValue().compareTo(capacity) > 0) {
        return Plan.refused(what + ": consumedCapacity " + e.getKey() + " = " + plain(e.getValue())
            + " exceeds the device's capacity of " + plain(capacity));
      }
    }
    String kindError = device.placer().map(p -> p.checkAmounts(consumed)).orElse(null);
    if (kindError != null) {
      return Plan.refused(what + ": " + kindError);
    }
    List<Share> others = held.stream().filter(h -> h.device().equals(device.name())).toList();
    for (Map.Entry<String, BigDecimal> e : consumed.entrySet()) {
      BigDecimal capacity = device.device().capacity().get(e.getKey()).toBigDecimal();
      BigDecimal used = others.stream().map(h -> h.consumed().getOrDefault(e.getKey(), BigDecimal.ZERO))
          .reduce(BigDecimal.ZERO, BigDecimal::add);
      if (used.add(e.getValue()).compareTo(capacity) > 0) {
        return Plan.refused(what + ": the share no longer fits: it consumes " + plain(e.getValue()) + " of " + e.getKey()
            + ", and " + plain(capacity.subtract(used).max(BigDecimal.ZERO)) + " of " + plain(capacity) + " are left");
      }
    }
    Share share = new Share(claimUid, device.name(), ask.shareId(), consumed, Placement.NONE);
    if (device.placer().isPresent()) {
      DevicePlacer.Decision d = device.placer().get().place(share, others, ask.configs());
      if (!d.placed()) {
        return Plan.refused(what + ": " + d.refusal());
      }
      share = share.placed(d.placement());
    }
    return Plan.of(share);
  }

  /**
   * Whether a share recorded earlier still fits the device as it is now (the node may have changed
   * since: CPUs taken offline or reserved, a smaller hugepage pool). Null when it does; else why not.
   */
  public String recheck(SharedDevice device, Share share, List<Share> held) {
    String what = "device " + device.name() + " share " + share.shareId();
    if (!device.device().allowMultipleAllocations()) {
      return what + ": the device is no longer shared";
    }
    for (Map.Entry<String, BigDecimal> e : share.consumed().entrySet()) {
      Quantity capacity = device.device().capacity().get(e.getKey());
      if (capacity == null) {
        return what + ": the device no longer has capacity " + e.getKey();
      }
      BigDecimal used = held.stream().filter(h -> h.device().equals(device.name()))
          .map(h -> h.consumed().getOrDefault(e.getKey(), BigDecimal.ZERO)).reduce(BigDecimal.ZERO, BigDecimal::add);
      if (used.compareTo(capacity.toBigDecimal()) > 0) {
        return what + ": the share no longer fits: the shares of the device consume " + plain(used) + " of " + e.getKey()
            + ", and the device now has " + plain(capacity.toBigDecimal());
      }
    }
    String why = device.placer().map(p -> p.recheck(share)).orElse(null);
    if (why != null) {
      return what + ": " + why;
    }
    return null;
  }

  /**
   * {@code error} with each {@code claim <UID>} a family named replaced by what {@code names} calls that claim
   * ({@code namespace/name (uid ...)}), so the kubelet's message says which claim holds a device.
   */
  public static String naming(String error, java.util.function.Function<String, String> names) {
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("claim ([0-9A-Za-z-]{1,64})").matcher(error);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String named = names.apply(m.group(1));
      m.appendReplacement(out, java.util.regex.Matcher.quoteReplacement("claim " + (named == null ? m.group(1) : named)));
    }
    m.appendTail(out);
    return out.toString();
  }

  static boolean validShareId(String id) {
    if (id.isEmpty() || id.length() > MAX_SHARE_ID_CHARS) {
      return false;
    }
    for (int i = 0; i < id.length(); i++) {
      char c = id.charAt(i);
      boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || (c == '-' && i > 0);
      if (!ok) {
        return false;
      }
    }
    return true;
  }

  /** Decimal text of {@code v}; scientific beyond 40 digits, so a hostile {@code 9e999999999} stays short. */
  static String plain(BigDecimal v) {
    BigDecimal s = v.stripTrailingZeros();
    return s.precision() - s.scale() > 40 || s.scale() > 40 ? s.toString() : s.toPlainString();
  }

  private static String quote(String s) {
    String text = s == null ? "" : s;
    return text.length() <= 40 && io.nodeatlas.discovery.host.Excerpt.isPrintable(text) && text.indexOf('"') < 0
        ? "\"" + text + "\"" : io.nodeatlas.discovery.host.Excerpt.of(text);
  }
}
