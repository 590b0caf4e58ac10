package io.nodeatlas.discovery.net.parse;

import io.nodeatlas.discovery.net.model.LinkLayer;

/** {@code ports/<n>/link_layer}: {@code InfiniBand}, {@code Ethernet} or {@code Unknown}. */
public final class LinkLayerParser {

  private LinkLayerParser() {}

  public static LinkLayer parse(String text) {
    for (LinkLayer l : LinkLayer.values()) {
      if (l.sysfsText().equals(text)) {
        return l;
      }
    }
    throw Expected.but("InfiniBand, Ethernet or Unknown", text);
  }
}
