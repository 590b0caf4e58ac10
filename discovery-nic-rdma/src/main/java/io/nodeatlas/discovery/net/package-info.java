/**
 * The {@code nic-rdma} discovery source: RDMA devices, PCI-backed network interfaces and SR-IOV
 * functions read from sysfs (shared/reference/rdma-nic-hugepages.md §1, §2), published as
 * {@code rdma}, {@code nic} and {@code vf} devices with the CDI edits a container needs.
 *
 * <p>Layers: {@code parse} turns sysfs text into values and never touches files; {@code sysfs} holds
 * the thin readers that go through {@link io.nodeatlas.discovery.host.HostFs}; {@code model} holds
 * the immutable records they produce; this package joins them and publishes devices.
 */
package io.nodeatlas.discovery.net;
