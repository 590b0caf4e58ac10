/**
 * Thin readers: they locate sysfs files through {@link io.nodeatlas.discovery.host.HostFs}, hand the
 * text to the parsers and turn every unreadable or malformed file into one warning and one absent fact.
 */
package io.nodeatlas.discovery.net.sysfs;
