package io.nodeatlas.agent.kubelet;

import io.nodeatlas.agent.claims.ClaimRef;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Function;

/** Turns the proto claims of either API version into {@link ClaimRef}s. */
final class KubeletClaims {

  private KubeletClaims() {}

  /**
   * The claims that name a UID; for the others {@code invalid} gets the key the kubelet will look
   * for (the empty UID) and an error.
   */
  static <C> List<ClaimRef> valid(List<C> claims, Function<C, String> namespace, Function<C, String> name,
      Function<C, String> uid, BiConsumer<String, String> invalid) {
    List<ClaimRef> out = new ArrayList<>(claims.size());
    for (C c : claims) {
      String u = uid.apply(c);
      if (u.isEmpty()) {
        invalid.accept(u, "claim " + namespace.apply(c) + "/" + name.apply(c) + " has no UID");
      } else {
        out.add(new ClaimRef(namespace.apply(c), name.apply(c), u));
      }
    }
    return out;
  }
}
