/**
 * Pure parsers of sysfs attribute text (kernel printf formats cited per parser). Each one either
 * returns a value or throws {@link java.lang.IllegalArgumentException} saying what was expected, which
 * {@link io.nodeatlas.discovery.host.FactReader} turns into one warning naming the file.
 */
package io.nodeatlas.discovery.net.parse;
