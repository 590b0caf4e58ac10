package io.nodeatlas.discovery.net.parse;

import io.nodeatlas.discovery.net.model.NodeType;

/** {@code node_type}: {@code "%d: %s"}, or {@code <unknown>} for a type the kernel has no name for. */
public final class NodeTypeParser {

  private NodeTypeParser() {}

  public static NodeType parse(String text) {
    if (text.equals("<unknown>")) {
      return NodeType.UNKNOWN;
    }
    return NodeType.ofCode(NumberedStateParser.parse(text).code());
  }
}
