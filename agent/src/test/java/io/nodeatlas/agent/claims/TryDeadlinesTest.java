package io.nodeatlas.agent.claims;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** The claim GETs' deadlines: honoured, never for a try that is done, and without a wake per try. */
class TryDeadlinesTest {

  /** A try that counts down when its end comes. */
  static final class Try implements TryDeadlines.Expiring {
    final CountDownLatch expired = new CountDownLatch(1);
    final AtomicBoolean done = new AtomicBoolean();

    @Override
    public void expire() {
      expired.countDown();
    }
  }

  static long in(Duration d) {
    return System.nanoTime() + d.toNanos();
  }

  @Test
  void eachEndExpiresItsTryAndAnEarlierEndThanTheWatchedOneIsHonoured() throws Exception {
    TryDeadlines deadlines = new TryDeadlines("test-deadline");
    Try late = new Try();
    Try early = new Try();
    long start = System.nanoTime();
    deadlines.watch(late, in(Duration.ofSeconds(3)));
    deadlines.watch(early, in(Duration.ofMillis(100)));

    assertThat(early.expired.await(30, TimeUnit.SECONDS)).isTrue();
    assertThat(System.nanoTime() - start).as("not before its end").isGreaterThanOrEqualTo(Duration.ofMillis(100).toNanos());
    assertThat(late.expired.getCount()).as("the later one still runs").isEqualTo(1);
    assertThat(late.expired.await(30, TimeUnit.SECONDS)).isTrue();
    assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(Duration.ofSeconds(3).toNanos());
  }

  @Test
  void aTryDoneBeforeItsEndIsNeverExpired() throws Exception {
    TryDeadlines deadlines = new TryDeadlines("test-deadline");
    Try done = new Try();
    Try marker = new Try();
    deadlines.watch(done, in(Duration.ofMillis(50)));
    deadlines.done(done);
    deadlines.watch(marker, in(Duration.ofMillis(200)));

    assertThat(marker.expired.await(30, TimeUnit.SECONDS)).isTrue();
    assertThat(done.expired.getCount()).isEqualTo(1);
  }

  @Test
  void aStreamOfTriesDoesNotWakeTheWatcherForEachTry() {
    TryDeadlines deadlines = new TryDeadlines("test-deadline");
    for (int i = 0; i < 500; i++) {
      Try t = new Try();
      deadlines.watch(t, in(Duration.ofSeconds(30)));
      deadlines.done(t);
    }
    // A ScheduledThreadPoolExecutor with remove-on-cancel woke its thread for each of them (500).
    assertThat(deadlines.wakes.get()).isLessThanOrEqualTo(3);
  }
}
