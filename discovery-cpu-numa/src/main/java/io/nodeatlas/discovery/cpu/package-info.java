/**
 * The {@code cpu-numa} discovery source: CPU topology, caches, NUMA nodes and hugepages read from
 * sysfs and procfs. Pure parsers live in {@link io.nodeatlas.discovery.cpu.parse}; the readers here
 * are thin and turn every broken file into one warning.
 */
package io.nodeatlas.discovery.cpu;
