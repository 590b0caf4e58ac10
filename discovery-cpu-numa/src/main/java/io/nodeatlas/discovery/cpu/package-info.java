/**
 * The {@code cpu-numa} discovery source: CPU topology, caches, NUMA nodes and hugepages read from
 * sysfs and procfs (Documentation/ABI/stable/sysfs-devices-system-cpu,
 * Documentation/ABI/stable/sysfs-devices-node, Documentation/admin-guide/mm/hugetlbpage.rst). Pure
 * parsers live in {@link io.nodeatlas.discovery.cpu.parse}; the readers here are thin, read through
 * {@link io.nodeatlas.discovery.host.FactReader} and turn every broken file into one warning.
 */
package io.nodeatlas.discovery.cpu;
