package io.nodeatlas.cli.packaging;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.cli.testing.Repo;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The licence a user finds at the top of the checkout and in the build's metadata: Apache-2.0, the whole text. */
class LicenseTest {

  @Test
  void theCheckoutCarriesTheWholeApacheLicense() throws Exception {
    Path license = Repo.root().resolve("LICENSE");
    assertThat(license).isRegularFile();
    String text = Files.readString(license);
    assertThat(text).contains("Apache License", "Version 2.0, January 2004", "TERMS AND CONDITIONS FOR USE, "
        + "REPRODUCTION, AND DISTRIBUTION", "9. Accepting Warranty or Additional Liability.", "END OF TERMS AND CONDITIONS",
        "APPENDIX: How to apply the Apache License to your work.");
    // The whole text, not a summary: the Apache text is 202 lines, about 11 KB.
    assertThat(text.length()).isGreaterThan(11_000);
  }

  @Test
  void theBuildDeclaresTheSameLicense() throws Exception {
    assertThat(Files.readString(Repo.root().resolve("pom.xml")))
        .contains("<name>Apache-2.0</name>").contains("https://www.apache.org/licenses/LICENSE-2.0.txt");
  }
}
