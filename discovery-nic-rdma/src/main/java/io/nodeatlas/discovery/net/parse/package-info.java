/**
 * Pure parsers of sysfs attribute text (kernel printf formats cited per parser). Each one either
 * returns a value or throws {@link io.nodeatlas.discovery.net.parse.SysfsFormatException}.
 */
package io.nodeatlas.discovery.net.parse;
