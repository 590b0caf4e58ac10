package io.nodeatlas.discovery.host;

import org.junit.jupiter.api.BeforeEach;

/**
 * Every {@link HostFsTest} again on a host root that every user may write: nothing below it can be
 * trusted to stay as it was checked, so every read, listing and link goes through directory
 * handles, and must answer exactly as the reads by path do.
 */
class HostFsWritableByOthersTest extends HostFsTest {

  @BeforeEach
  void letEveryUserWriteTheRoot() throws Exception {
    writableByOthers(root);
  }
}
