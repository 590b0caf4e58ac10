package io.nodeatlas.discovery.net.health;

import static io.nodeatlas.discovery.net.NicRdmaAttributes.IF_NAME;
import static io.nodeatlas.discovery.net.NicRdmaAttributes.RDMA_DEVICE;

import io.nodeatlas.discovery.health.DeviceProblem;
import io.nodeatlas.discovery.health.HealthCheck;
import io.nodeatlas.discovery.host.FactReader;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.model.AttributeValue;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.Names;
import io.nodeatlas.discovery.net.NicRdmaPublisher;
import io.nodeatlas.discovery.net.parse.InterfaceNames;
import io.nodeatlas.discovery.net.parse.NumberedStateParser;
import io.nodeatlas.discovery.pci.PciAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The health of the {@code nic-rdma} devices, from sysfs on every call:
 *
 * <ul>
 *   <li>the PCI function ({@code resource.kubernetes.io/pciBusID}) gone from {@code bus/pci/devices}: lost
 *       (surprise removal, a function that fell off the bus);</li>
 *   <li>the RDMA device ({@code class/infiniband/<ibdev>}) gone: lost; a port whose logical state
 *       ({@code ports/N/state}, {@code Documentation/ABI/stable/sysfs-class-infiniband}) is not
 *       {@code ACTIVE}: {@code port-down} (or {@code port-init}, {@code port-armed});</li>
 *   <li>the interface ({@code class/net/<if>}, {@code Documentation/ABI/testing/sysfs-class-net}) up
 *       administratively ({@code flags} has {@code IFF_UP}) without a link ({@code carrier} 0, or
 *       {@code operstate} {@code down}/{@code lowerlayerdown}): {@code link-down}. An interface that is
 *       administratively down is not a fault (unused, or a VF a pod will bring up), and one missing from
 *       the host's namespace has been moved into a pod: neither is reported.</li>
 * </ul>
 */
public final class NicRdmaHealthCheck implements HealthCheck {

  private static final System.Logger LOG = System.getLogger(NicRdmaHealthCheck.class.getName());
  private static final int IFF_UP = 0x1;
  private static final int MAX_REMEMBERED_WARNINGS = 256;
  private static final Pattern PORT = Pattern.compile("^[0-9]{1,3}$");

  private final HostFs fs;
  private final FactReader facts;
  private final Set<String> warned = new LinkedHashSet<>();

  public NicRdmaHealthCheck(HostFs fs) {
    this.fs = fs;
    this.facts = new FactReader(fs, this::warn);
  }

  /** Each distinct warning once (a broken file would otherwise repeat on every poll). */
  private void warn(String message) {
    if (warned.size() < MAX_REMEMBERED_WARNINGS && warned.add(message)) {
      LOG.log(System.Logger.Level.WARNING, "health check: " + message);
    }
  }

  @Override
  public List<DeviceProblem> check(List<Device> devices) {
    // A check looks at the node as it is now: a function unplugged or a class link moved since the last
    // discovery must not be answered from the directories that run resolved.
    fs.forgetResolvedDirectories();
    List<DeviceProblem> problems = new ArrayList<>();
    for (Device d : devices) {
      if (d.source().equals(NicRdmaPublisher.SOURCE)) {
        problem(d).ifPresent(problems::add);
      }
    }
    return problems;
  }

  private Optional<DeviceProblem> problem(Device d) {
    Optional<String> busId = string(d, Names.PCI_BUS_ID).flatMap(PciAddress::tryParse).map(PciAddress::toString);
    if (busId.isPresent() && !fs.exists(fs.sys("bus/pci/devices/" + busId.get()))) {
      return Optional.of(new DeviceProblem(d.name(), "pci-gone", true,
          "PCI function " + busId.get() + " is gone from " + fs.hostPath(fs.sys("bus/pci/devices"))));
    }
    Optional<String> ibdev = string(d, RDMA_DEVICE).filter(NicRdmaHealthCheck::isSafeName);
    if (ibdev.isPresent()) {
      Path dir = fs.sys("class/infiniband/" + ibdev.get());
      if (!fs.exists(dir)) {
        return Optional.of(new DeviceProblem(d.name(), "rdma-gone", true, "RDMA device " + ibdev.get() + " is gone"));
      }
      for (Path port : facts.list(dir.resolve("ports"))) {
        String number = port.getFileName().toString();
        if (!PORT.matcher(number).matches()) {
          continue;
        }
        Optional<String> state = facts.read(port.resolve("state"), t -> NumberedStateParser.parse(t).label());
        if (state.isPresent() && !state.get().equals("active") && !state.get().equals("active_defer")) {
          return Optional.of(new DeviceProblem(d.name(), "port-" + state.get(), false,
              "RDMA device " + ibdev.get() + " port " + number + " is " + state.get() + " (" + fs.hostPath(port.resolve("state")) + ")"));
        }
      }
    }
    Optional<String> ifName = string(d, IF_NAME).filter(InterfaceNames::isValid);
    if (ifName.isPresent() && !d.type().orElse("").equals("rdma")) {
      Path dir = fs.sys("class/net/" + ifName.get());
      if (!fs.exists(dir)) {
        return Optional.empty(); // moved into a pod's namespace (or renamed): not ours to judge now
      }
      Optional<Integer> flags = facts.read(dir.resolve("flags"), NicRdmaHealthCheck::hex);
      if (flags.isPresent() && (flags.get() & IFF_UP) != 0) {
        Optional<String> oper = facts.read(dir.resolve("operstate"), String::trim);
        // carrier fails with EINVAL while the interface is down: absence, not a fault.
        Optional<String> carrier = facts.readIfApplicable(dir.resolve("carrier"), String::trim);
        boolean noCarrier = carrier.filter("0"::equals).isPresent();
        boolean operDown = oper.filter(s -> s.equals("down") || s.equals("lowerlayerdown")).isPresent();
        if (noCarrier || operDown) {
          return Optional.of(new DeviceProblem(d.name(), "link-down", false, "interface " + ifName.get()
              + " is up without a link (operstate " + oper.orElse("?") + ", carrier " + carrier.orElse("?") + ")"));
        }
      }
    }
    return Optional.empty();
  }

  private static boolean isSafeName(String name) {
    return !name.isEmpty() && name.length() <= 64 && !name.contains("/") && !name.equals(".") && !name.equals("..");
  }

  private static Integer hex(String text) {
    String t = text.trim();
    if (!t.startsWith("0x") || t.length() < 3 || t.length() > 10) {
      throw new IllegalArgumentException("expected a hexadecimal flags word such as 0x1003");
    }
    try {
      return (int) Long.parseLong(t.substring(2), 16);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("expected a hexadecimal flags word such as 0x1003", e);
    }
  }

  private static Optional<String> string(Device d, String name) {
    return d.attribute(name).map(AttributeValue::asObject).filter(String.class::isInstance).map(String.class::cast);
  }
}
