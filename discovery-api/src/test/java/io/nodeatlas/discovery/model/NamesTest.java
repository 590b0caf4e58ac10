package io.nodeatlas.discovery.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class NamesTest {

  /** The API's own patterns (k8s.io/apimachinery validation: DNS1123Label, DNS1123Subdomain, CIdentifier). */
  private static final Pattern LABEL = Pattern.compile("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$");
  private static final Pattern SUBDOMAIN = Pattern.compile("^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$");
  private static final Pattern C_IDENTIFIER = Pattern.compile("^[A-Za-z_][A-Za-z0-9_]*$");

  @Test
  void theHandWrittenChecksAcceptWhatTheApiAccepts() {
    assertThat(Names.isDnsLabel("gpu-0")).isTrue();
    assertThat(Names.isDnsLabel("-gpu")).isFalse();
    assertThat(Names.isDnsLabel("gpu-")).isFalse();
    assertThat(Names.isDnsLabel("a".repeat(63))).isTrue();
    assertThat(Names.isDnsLabel("a".repeat(64))).isFalse();
    assertThat(Names.isDnsSubdomain("nodeatlas.io")).isTrue();
    assertThat(Names.isDnsSubdomain("nodeatlas..io")).isFalse();
    assertThat(Names.isDnsSubdomain("nodeatlas.io.")).isFalse();
    assertThat(Names.isDnsSubdomain("n".repeat(70) + ".io")).isTrue(); // as IsDNS1123Subdomain: labels unbounded
    assertThat(Names.isCIdentifier("pciDeviceID")).isTrue();
    assertThat(Names.isCIdentifier("9lives")).isFalse();
  }

  @FuzzTest(maxDuration = "10s")
  void handWrittenChecksAgreeWithTheApisPatterns(String s) {
    if (s == null) {
      return;
    }
    assertThat(Names.isDnsLabel(s)).isEqualTo(s.length() <= 63 && LABEL.matcher(s).matches());
    assertThat(Names.isDnsSubdomain(s)).isEqualTo(s.length() <= 253 && SUBDOMAIN.matcher(s).matches());
    assertThat(Names.isCIdentifier(s)).isEqualTo(C_IDENTIFIER.matcher(s).matches());
  }

  /** The API's rule for an attribute or capacity name, from its patterns: an optional domain, then an identifier. */
  private static boolean qualifiedByPatterns(String s) {
    int slash = s.indexOf('/');
    String domain = slash < 0 ? null : s.substring(0, slash);
    String identifier = s.substring(slash + 1);
    return !s.isEmpty()
        && (domain == null || (domain.length() <= 63 && SUBDOMAIN.matcher(domain).matches()))
        && identifier.length() <= Names.MAX_IDENTIFIER_LENGTH && C_IDENTIFIER.matcher(identifier).matches();
  }

  private static boolean accepted(String s) {
    try {
      return Names.requireQualifiedName(s) == s;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  @Test
  void qualifiedNamesAreCheckedPartByPart() {
    for (String s : new String[] {"nodeatlas.io/type", "resource.kubernetes.io/pciBusID", "type", "_x9", "nodeatlas.io/",
        "/type", "a/b/c", "a.b/9x", "a..b/x", "a-/x", "-a/x", "A.io/x", "a".repeat(63) + "/x", "a".repeat(64) + "/x",
        "d/" + "x".repeat(32), "d/" + "x".repeat(33), "x".repeat(32), "x".repeat(33), "nodeatlas.io/a-b", "ü/x", "a/ü"}) {
      assertThat(accepted(s)).as(s).isEqualTo(qualifiedByPatterns(s));
    }
    // The messages name the part at fault, as they always did.
    assertThatThrownBy(() -> Names.requireQualifiedName("Bad.io/type"))
        .hasMessage("attribute name \"Bad.io/type\": domain \"Bad.io\" is not a DNS subdomain of at most 63 characters");
    assertThatThrownBy(() -> Names.requireQualifiedName("nodeatlas.io/9x"))
        .hasMessage("attribute name \"nodeatlas.io/9x\": \"9x\" is not a C identifier of at most 32 characters");
  }

  @FuzzTest(maxDuration = "10s")
  void qualifiedNamesAgreeWithTheApisPatterns(String s) {
    if (s == null) {
      return;
    }
    assertThat(accepted(s)).isEqualTo(qualifiedByPatterns(s));
  }
}
