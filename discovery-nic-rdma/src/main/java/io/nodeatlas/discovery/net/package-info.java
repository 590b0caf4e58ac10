/**
 * The {@code nic-rdma} discovery source: RDMA devices, PCI-backed network interfaces and SR-IOV
 * functions read from sysfs ({@code Documentation/ABI/stable/sysfs-class-infiniband},
 * {@code Documentation/ABI/testing/sysfs-class-net}, {@code Documentation/ABI/testing/sysfs-bus-pci}),
 * published as {@code rdma}, {@code nic} and {@code vf} devices with the CDI edits a container needs.
 *
 * <p>Layers: {@code parse} turns sysfs text into values and never touches files; {@code sysfs} holds
 * the thin readers that go through {@link io.nodeatlas.discovery.host.FactReader}; {@code model} holds
 * the immutable records they produce; this package joins them and publishes devices. The common PCI
 * facts are discovery-api's ({@link io.nodeatlas.discovery.pci.PciFunctionReader}).
 */
package io.nodeatlas.discovery.net;
