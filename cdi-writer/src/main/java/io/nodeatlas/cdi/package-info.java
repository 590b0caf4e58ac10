/** Filled by its own issue. */
package io.nodeatlas.cdi;
