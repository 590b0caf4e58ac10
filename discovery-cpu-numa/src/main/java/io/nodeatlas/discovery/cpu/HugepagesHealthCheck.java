package io.nodeatlas.discovery.cpu;

import io.nodeatlas.discovery.health.DeviceProblem;
import io.nodeatlas.discovery.health.HealthCheck;
import io.nodeatlas.discovery.host.FactReader;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.model.AttributeValue;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.Names;
import io.nodeatlas.discovery.model.Quantity;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Whether each published hugepage pool still holds what its device promised: the pool's pages
 * ({@code nr_hugepages} of {@code node/node<N>/hugepages/hugepages-<kB>kB/}, or of
 * {@code kernel/mm/hugepages/} for a host-wide pool; Documentation/admin-guide/mm/hugetlbpage.rst) times
 * the page size below the device's {@code nodeatlas.io/memory} capacity means an administrator (or the
 * kernel, under memory pressure, for a resize) shrank it: {@code hugepages-shrunk}, {@code NoSchedule}.
 * It recovers when the pool is back (or once the next discovery publishes the smaller pool).
 */
public final class HugepagesHealthCheck implements HealthCheck {

  private static final System.Logger LOG = System.getLogger(HugepagesHealthCheck.class.getName());
  private static final int MAX_REMEMBERED_WARNINGS = 64;

  private final HostFs fs;
  private final FactReader facts;
  private final Set<String> warned = new LinkedHashSet<>();

  public HugepagesHealthCheck(HostFs fs) {
    this.fs = fs;
    this.facts = new FactReader(fs, m -> {
      if (warned.size() < MAX_REMEMBERED_WARNINGS && warned.add(m)) {
        LOG.log(System.Logger.Level.WARNING, "hugepages health: " + m);
      }
    });
  }

  @Override
  public List<DeviceProblem> check(List<Device> devices) {
    List<DeviceProblem> out = new ArrayList<>();
    for (Device d : devices) {
      if (!d.source().equals(CpuNumaDevices.SOURCE) || !d.type().orElse("").equals(CpuNumaDevices.HUGEPAGES_TYPE)) {
        continue;
      }
      Optional<Long> pageSize = longAttribute(d, CpuNumaDevices.PAGE_SIZE_BYTES).filter(s -> s >= 4096 && s % 1024 == 0);
      Quantity promised = d.capacity().get(CpuNumaDevices.MEMORY_CAPACITY);
      if (pageSize.isEmpty() || promised == null) {
        continue;
      }
      Optional<Long> node = longAttribute(d, Names.NUMA_NODE).filter(n -> n >= 0 && n < 1 << 16);
      String pool = "hugepages/hugepages-" + (pageSize.get() / 1024) + "kB/nr_hugepages";
      Path file = node.isPresent() ? fs.sys("devices/system/node/node" + node.get() + "/" + pool) : fs.sys("kernel/mm/" + pool);
      long pages = facts.read(file, t -> Long.parseLong(t.trim())).orElse(0L);
      BigDecimal now = BigDecimal.valueOf(pages).multiply(BigDecimal.valueOf(pageSize.get()));
      if (now.compareTo(promised.toBigDecimal()) < 0) {
        out.add(new DeviceProblem(d.name(), "hugepages-shrunk", false, "the pool holds " + pages + " pages ("
            + now.toPlainString() + " bytes), less than the " + promised.value() + " published (" + fs.hostPath(file) + ")"));
      }
    }
    return out;
  }

  private static Optional<Long> longAttribute(Device d, String name) {
    return d.attribute(name).map(AttributeValue::asObject).filter(Number.class::isInstance).map(v -> ((Number) v).longValue());
  }
}
