package io.nodeatlas.agent.claims;

/**
 * A read-only bind mount that a claim's own CDI spec carries as a CDI device of its own, {@code name}
 * (unique in the claim's spec): a device metadata file of KEP-5304, whose id the Prepare answer adds to
 * the request's first device (KEP-5304 "Design Details", steps 4–6).
 */
public record ClaimMount(String name, String hostPath, String containerPath) {}
