/** Immutable records of what sysfs says about RDMA devices, network interfaces and PCI functions. */
package io.nodeatlas.discovery.net.model;
