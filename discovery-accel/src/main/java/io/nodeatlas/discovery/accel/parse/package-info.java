/**
 * Pure parsers of the files the {@code accel} source reads: text in, value out, never a file. Each
 * throws {@link IllegalArgumentException} saying what it expected, which
 * {@link io.nodeatlas.discovery.host.FactReader} turns into one warning naming the file.
 */
package io.nodeatlas.discovery.accel.parse;
