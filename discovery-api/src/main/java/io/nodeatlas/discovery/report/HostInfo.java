package io.nodeatlas.discovery.report;

/** Identifies the host a report describes; {@code hostname} and {@code kernel} are null when unreadable. */
public record HostInfo(String hostname, String kernel, String hostRoot) {}
