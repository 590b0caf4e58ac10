package io.nodeatlas.discovery.cpu.doctor;

import io.nodeatlas.discovery.cpu.CpuNumaDevices;
import io.nodeatlas.discovery.doctor.DoctorCheck;
import io.nodeatlas.discovery.doctor.DoctorContext;
import io.nodeatlas.discovery.doctor.Finding;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.model.AttributeValue;
import io.nodeatlas.discovery.model.Device;
import java.util.ArrayList;
import java.util.List;

/**
 * Hugepages the kernel has reserved ({@code /sys/kernel/mm/hugepages/hugepages-<kB>kB/nr_hugepages})
 * against the hugepage pools we publish: a size with reserved pages and no pool is memory nobody can
 * claim (most often no hugetlbfs mount of that size).
 */
final class HugepagesCheck implements DoctorCheck {

  @Override
  public String name() {
    return "hugepages";
  }

  @Override
  public List<Finding> run(DoctorContext context) {
    HostFs fs = context.host().fs();
    List<Device> pools = FamilyDevices.ofType(context.devices(), CpuNumaDevices.HUGEPAGES_TYPE);
    List<Finding> out = new ArrayList<>();
    List<String> seen = new ArrayList<>();
    for (String dir : fs.listNames(fs.sys("kernel/mm/hugepages"))) {
      if (!dir.matches("hugepages-[0-9]{1,12}kB")) {
        continue;
      }
      long kib = Long.parseLong(dir.substring("hugepages-".length(), dir.length() - 2));
      long reserved = fs.readValue(fs.sys("kernel/mm/hugepages/" + dir + "/nr_hugepages"))
          .filter(v -> v.matches("[0-9]{1,18}")).map(Long::parseLong).orElse(0L);
      if (reserved == 0) {
        continue;
      }
      long pageBytes = kib * 1024;
      List<Device> ofSize = pools.stream().filter(d -> pageBytes(d) == pageBytes).toList();
      long publishedPages = ofSize.stream().mapToLong(d -> memoryBytes(d) / pageBytes).sum();
      String size = human(pageBytes);
      String fix = "nodeatlas discover --sources cpu-numa says why a pool is left out (most often: mount hugetlbfs with pagesize="
          + size.replace("i", "") + ")";
      if (ofSize.isEmpty()) {
        out.add(Finding.warn("hugepages", reserved + " pages of " + size + " are reserved, and no pool of them is published", fix));
      } else if (publishedPages < reserved) {
        out.add(Finding.warn("hugepages", reserved + " pages of " + size + " are reserved, and pools of only " + publishedPages
            + " are published", fix));
      } else {
        seen.add(reserved + " × " + size + " in " + ofSize.size() + " pools");
      }
    }
    if (out.isEmpty()) {
      out.add(Finding.ok("hugepages", seen.isEmpty() ? "no hugepages reserved" : "reserved and published: " + String.join(", ", seen)));
    }
    return out;
  }

  private static long pageBytes(Device d) {
    return d.attribute(CpuNumaDevices.PAGE_SIZE_BYTES).map(AttributeValue::asObject)
        .filter(Number.class::isInstance).map(n -> ((Number) n).longValue()).orElse(-1L);
  }

  private static long memoryBytes(Device d) {
    var q = d.capacity().get(CpuNumaDevices.MEMORY_CAPACITY);
    try {
      return q == null ? 0 : q.toBigDecimal().longValueExact();
    } catch (ArithmeticException e) {
      return 0;
    }
  }

  private static String human(long bytes) {
    if (bytes % (1L << 30) == 0) {
      return (bytes >> 30) + "Gi";
    }
    if (bytes % (1L << 20) == 0) {
      return (bytes >> 20) + "Mi";
    }
    return (bytes >> 10) + "Ki";
  }
}
