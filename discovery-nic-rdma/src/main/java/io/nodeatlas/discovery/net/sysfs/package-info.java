/**
 * Thin readers: they locate sysfs files under {@link io.nodeatlas.discovery.host.HostFs}'s roots and
 * read them through {@link io.nodeatlas.discovery.host.FactReader}, which hands the text to the pure
 * parsers and turns every unreadable or malformed file into one warning and one absent fact.
 */
package io.nodeatlas.discovery.net.sysfs;
