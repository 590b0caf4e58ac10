package io.nodeatlas.agent.shares;

import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.share.ClaimDevice;
import io.nodeatlas.discovery.share.Share;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * The devices of one claim's CDI spec: one CDI device per share, named {@link #deviceName}, with the
 * device's published edits, then the devices held whole, as published; each family of them then
 * makes its container edits ({@link Families#containerEdits}). Pure: devices in, devices out.
 */
public final class ShareEdits {

  private final Families families;

  public ShareEdits(Families families) {
    this.families = families;
  }

  /** One share of the claim and the device it is of. */
  public record Placed(SharedDevice device, Share share) {}

  /** The spec's devices: the shares' in the order given, then {@code whole}; each family's edits made. */
  public List<Device> devices(List<Placed> shares, List<Device> whole) {
    List<ClaimDevice> claim = new ArrayList<>();
    for (Placed p : shares) {
      Device d = p.device().device();
      claim.add(ClaimDevice.share(new Device(deviceName(d.name(), p.share().shareId()), d.source(), d.attributes(),
          d.capacity(), d.requestPolicies(), d.allowMultipleAllocations(), d.containerEdits()), p.share()));
    }
    whole.forEach(d -> claim.add(ClaimDevice.whole(d)));
    return families.containerEdits(claim);
  }

  /**
   * The name of a share's CDI device within the claim's spec: {@code <device>-s<12 hex of SHA-256(shareID)>},
   * the device part shortened so the whole stays a DNS label. Two shares of one device in one claim
   * thus get two CDI devices.
   */
  public static String deviceName(String device, String shareId) {
    String suffix = "-s" + HexFormat.of().formatHex(sha256(shareId), 0, 6);
    String head = device.length() + suffix.length() > 63 ? device.substring(0, 63 - suffix.length()) : device;
    while (head.endsWith("-")) {
      head = head.substring(0, head.length() - 1);
    }
    return head + suffix;
  }

  private static byte[] sha256(String s) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("no SHA-256", e);
    }
  }
}
