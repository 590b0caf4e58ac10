/** Filled by its own issue. */
package io.nodeatlas.discovery.cpu;
