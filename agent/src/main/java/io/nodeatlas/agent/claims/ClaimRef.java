package io.nodeatlas.agent.claims;

/**
 * A claim as the kubelet names it in NodePrepareResources / NodeUnprepareResources
 * ({@code Claim{namespace=1, uid=2, name=3}}, the kubelet DRA plugin API {@code v1} message). The UID is the identity: a claim
 * deleted and re-created under the same name is a different claim.
 */
public record ClaimRef(String namespace, String name, String uid) {
  public ClaimRef {
    if (uid == null || uid.isEmpty()) {
      throw new IllegalArgumentException("claim " + namespace + "/" + name + " has no UID");
    }
    namespace = namespace == null ? "" : namespace;
    name = name == null ? "" : name;
  }

  @Override
  public String toString() {
    return namespace + "/" + name + " (uid " + uid + ")";
  }
}
