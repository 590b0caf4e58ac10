package io.nodeatlas.match.claims;

import io.nodeatlas.match.claims.ClaimModel.AllocationMode;
import io.nodeatlas.match.claims.ClaimModel.Container;
import io.nodeatlas.match.claims.ClaimModel.DeviceClass;
import io.nodeatlas.match.claims.ClaimModel.DeviceSelection;
import io.nodeatlas.match.claims.ClaimModel.Request;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * The requests of the ResourceClaim the scheduler generates for a pod's extended resources (KEP-5004; the
 * scheduler's dynamicresources plugin, {@code createRequestsAndMappings}): for each extended resource a
 * DeviceClass serves, in name order,
 *
 * <ul>
 *   <li>each long-lived container (an app container or a sidecar init container) that requests it gets its
 *       own request {@code container-<i>-request-<j>}, {@code i} its place among init containers then
 *       containers, {@code j} the resource's place among all the container's requested resources, sorted;
 *       {@code exactly} that many devices of the class;
 *   <li>an init container that runs before them first borrows the requests of the long-lived containers
 *       from its own place on, and asks only for what they do not cover; of those init containers only the
 *       largest request is kept, since they run one after another.
 * </ul>
 *
 * The requests are sorted by name. An extended resource no DeviceClass serves is a device plugin's and
 * stays out.
 */
public final class ExtendedResourceRequests {

  /** The annotation the scheduler puts on the claim it generates ({@code resource.kubernetes.io/extended-resource-claim}). */
  public static final String ANNOTATION = "resource.kubernetes.io/extended-resource-claim";

  private ExtendedResourceRequests() {}

  /** The requests for these containers, with {@code classOf} the DeviceClass serving a resource name. */
  public static List<Request> of(List<Container> containers, Function<String, Optional<DeviceClass>> classOf) {
    TreeSet<String> resources = new TreeSet<>();
    containers.forEach(c -> resources.addAll(c.extended().keySet()));
    List<Request> out = new ArrayList<>();
    for (String resource : resources) {
      Optional<DeviceClass> serving = classOf.apply(resource);
      if (serving.isEmpty()) {
        continue;
      }
      String className = serving.get().name();
      Request[] longLived = new Request[containers.size()];
      for (Container c : containers) {
        if (!c.shortLived()) {
          longLived[c.index()] = request(c, resource, className, 0);
        }
      }
      Request largestShortLived = null;
      for (Container c : containers) {
        if (!c.shortLived()) {
          continue;
        }
        long wanted = c.extended().getOrDefault(resource, 0L);
        long borrowed = 0;
        for (int i = c.index(); i < longLived.length && borrowed < wanted; i++) {
          if (longLived[i] != null) {
            borrowed += longLived[i].alternatives().get(0).count();
          }
        }
        Request own = borrowed >= wanted ? null : request(c, resource, className, borrowed);
        if (own != null && (largestShortLived == null
            || own.alternatives().get(0).count() > largestShortLived.alternatives().get(0).count())) {
          largestShortLived = own;
        }
      }
      if (largestShortLived != null) {
        out.add(largestShortLived);
      }
      for (Request r : longLived) {
        if (r != null) {
          out.add(r);
        }
      }
    }
    out.sort(Comparator.comparing(Request::name));
    return out;
  }

  /** The container's request for a resource beyond {@code borrowed} devices, or null when it asks for none. */
  private static Request request(Container c, String resource, String className, long borrowed) {
    long wanted = c.extended().getOrDefault(resource, 0L);
    if (wanted <= borrowed) {
      return null;
    }
    String name = "container-" + c.index() + "-request-" + c.requestNames().indexOf(resource);
    return new Request(name, List.of(new DeviceSelection(null, className, List.of(), AllocationMode.EXACT_COUNT,
        wanted - borrowed, new TreeMap<>())), false);
  }
}
