package io.nodeatlas.cdi.spec;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.nodeatlas.cdi.CdiValidator;

/**
 * Any bytes given to the spec reader end in a spec or a {@link CdiParseException}, never another
 * exception; a parsed spec can always be validated and written, and what is written reads back equal.
 */
class CdiSpecCodecFuzzTest {

  private static final CdiSpecCodec CODEC = new CdiSpecCodec();
  private static final CdiValidator VALIDATOR = new CdiValidator(CODEC);

  @FuzzTest(maxDuration = "30s")
  void readNeverFailsUnexpectedly(byte[] data) throws CdiParseException {
    CdiSpec spec;
    try {
      spec = CODEC.read(new String(data, java.nio.charset.StandardCharsets.UTF_8));
    } catch (CdiParseException expected) {
      return;
    }
    VALIDATOR.validate(spec, "fuzz.json");
    for (SpecFormat format : SpecFormat.values()) {
      CdiSpec again = CODEC.read(CODEC.write(spec, format));
      if (!again.equals(spec)) {
        throw new AssertionError("round trip changed the spec in " + format + ": " + spec + " -> " + again);
      }
    }
  }
}
