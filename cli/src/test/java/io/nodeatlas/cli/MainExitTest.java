package io.nodeatlas.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * Main returns from a successful discover instead of calling System.exit only when no other thread
 * would keep the JVM up: a live non-daemon thread in its group (or below) means System.exit.
 */
class MainExitTest {

  /** Runs the check on a thread of a fresh group holding a helper thread (daemon or not). */
  private static boolean checkWith(boolean helperIsDaemon, boolean helperInSubgroup) throws Exception {
    ThreadGroup group = new ThreadGroup("main-exit-test");
    ThreadGroup helperGroup = helperInSubgroup ? new ThreadGroup(group, "below") : group;
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch helperRunning = new CountDownLatch(1);
    AtomicBoolean keepsUp = new AtomicBoolean();
    Thread checker = new Thread(group, () -> {
      Thread helper = new Thread(helperGroup, () -> {
        helperRunning.countDown();
        try {
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
      helper.setDaemon(helperIsDaemon);
      helper.start();
      try {
        assertThat(helperRunning.await(30, TimeUnit.SECONDS)).isTrue();
      } catch (InterruptedException e) {
        throw new AssertionError(e);
      }
      keepsUp.set(Main.otherThreadsKeepTheJvmUp());
    });
    checker.setDaemon(true);
    checker.start();
    checker.join(TimeUnit.SECONDS.toMillis(30));
    release.countDown();
    assertThat(checker.isAlive()).isFalse();
    return keepsUp.get();
  }

  @Test
  void aLiveNonDaemonThreadKeepsTheJvmUp() throws Exception {
    assertThat(checkWith(false, false)).isTrue();
    assertThat(checkWith(false, true)).isTrue();
  }

  @Test
  void daemonThreadsDoNot() throws Exception {
    assertThat(checkWith(true, false)).isFalse();
    assertThat(checkWith(true, true)).isFalse();
  }
}
