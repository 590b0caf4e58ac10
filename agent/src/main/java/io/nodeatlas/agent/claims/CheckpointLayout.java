package io.nodeatlas.agent.claims;

import java.util.Collection;
import java.util.List;

/**
 * How a checkpoint's members, each encoded by Jackson beforehand, are joined: into the canonical document
 * its checksum covers (compact, members in name order) and into the file (the same members with {@code
 * checksum} first, one member and one claim per line, as every earlier writer laid it out).
 */
final class CheckpointLayout {

  private CheckpointLayout() {}

  /** The canonical document up to the first claim: {@code {<members before claims>,"claims":{}. */
  static byte[] head(Collection<byte[]> before, byte[] claimsName) {
    Builder b = new Builder(2 + claimsName.length + size(before, 1));
    b.put('{');
    for (byte[] m : before) {
      b.put(m).put(',');
    }
    return b.put(claimsName).put('{').done();
  }

  /** The canonical document after the last claim: {@code },<members after claims>}}. */
  static byte[] tail(Collection<byte[]> after) {
    Builder b = new Builder(2 + size(after, 1));
    b.put('}');
    for (byte[] m : after) {
      b.put(',').put(m);
    }
    return b.put('}').done();
  }

  /** The file: {@code {"checksum":...,\n<member>,\n"claims":{\n<claim>,\n<claim>},\n<member>\n}\n}. */
  static byte[] file(byte[] checksum, Collection<byte[]> before, byte[] claimsName, List<CheckpointCodec.Entry> claims,
      Collection<byte[]> after) {
    int size = 1 + checksum.length + size(before, 2) + 2 + claimsName.length + 2 + size(after, 2) + 3;
    for (CheckpointCodec.Entry e : claims) {
      size += e.memberBytes().length + 2;
    }
    Builder b = new Builder(claims.isEmpty() ? size : size - 1);
    b.put('{').put(checksum);
    for (byte[] m : before) {
      b.put(',').put('\n').put(m);
    }
    b.put(',').put('\n').put(claimsName).put('{');
    for (int k = 0; k < claims.size(); k++) {
      if (k > 0) {
        b.put(',');
      }
      b.put('\n').put(claims.get(k).memberBytes());
    }
    b.put('}');
    for (byte[] m : after) {
      b.put(',').put('\n').put(m);
    }
    return b.put('\n').put('}').put('\n').done();
  }

  private static int size(Collection<byte[]> members, int separator) {
    int n = 0;
    for (byte[] m : members) {
      n += m.length + separator;
    }
    return n;
  }

  /** An array of a size known beforehand, filled in order; {@link #done} checks it was filled exactly. */
  private static final class Builder {
    private final byte[] out;
    private int pos;

    Builder(int size) {
      out = new byte[size];
    }

    Builder put(char c) {
      out[pos++] = (byte) c;
      return this;
    }

    Builder put(byte[] bytes) {
      System.arraycopy(bytes, 0, out, pos, bytes.length);
      pos += bytes.length;
      return this;
    }

    byte[] done() {
      if (pos != out.length) {
        throw new IllegalStateException("checkpoint size miscounted: " + pos + " of " + out.length);
      }
      return out;
    }
  }
}
