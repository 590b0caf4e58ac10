package io.nodeatlas.agent.shares;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ShareEditsTest {

  @Test
  void shareDeviceNamesAreDistinctDnsLabels() {
    String longName = "a".repeat(60);
    assertThat(ShareEdits.deviceName(longName, "x")).hasSizeLessThanOrEqualTo(63).matches("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
    assertThat(ShareEdits.deviceName("cpu-numa0", "x")).isNotEqualTo(ShareEdits.deviceName("cpu-numa0", "y"))
        .startsWith("cpu-numa0-s");
  }
}
