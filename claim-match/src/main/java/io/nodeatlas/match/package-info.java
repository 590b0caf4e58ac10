/** Filled by its own issue. */
package io.nodeatlas.match;
