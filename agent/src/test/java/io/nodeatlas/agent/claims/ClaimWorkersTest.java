package io.nodeatlas.agent.claims;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The claims of one call: parallel up to the bound, quick claims first, nothing started after the budget ends. */
class ClaimWorkersTest {

  private static List<ClaimRef> claims(int n) {
    List<ClaimRef> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(new ClaimRef("default", "c" + i, "uid-" + i));
    }
    return out;
  }

  @Test
  void claimsRunInParallelUpToTheBoundAndNoneStartsOnceTheBudgetIsAbandoned() throws Exception {
    ExecutorService helpers = Executors.newFixedThreadPool(3);
    ClaimWorkers workers = new ClaimWorkers(helpers, 4);
    CallBudget budget = CallBudget.after(Duration.ofMinutes(5));
    Set<String> started = ConcurrentHashMap.newKeySet();
    CountDownLatch fourRunning = new CountDownLatch(4);
    CountDownLatch release = new CountDownLatch(1);
    Thread abandoner = new Thread(() -> {
      try {
        // Once four claims are running at once, the caller goes away.
        fourRunning.await();
        budget.abandon("the kubelet cancelled the call");
        release.countDown();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    abandoner.start();

    Map<String, String> answers = workers.run(claims(20), budget, c -> false, c -> {
      started.add(c.uid());
      fourRunning.countDown();
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return "done";
    }, c -> "late: " + budget.why());

    helpers.shutdown();
    assertThat(helpers.awaitTermination(60, TimeUnit.SECONDS)).isTrue();
    assertThat(started).as("claims started: the four running when the call was cancelled").hasSize(4);
    assertThat(answers.keySet()).containsExactlyElementsOf(claims(20).stream().map(ClaimRef::uid).toList());
    answers.forEach((uid, answer) -> {
      if (started.contains(uid)) {
        // Finished by the caller itself, or by a helper after the answer was made up.
        assertThat(answer).as(uid).isIn("done", "late: the kubelet cancelled the call");
      } else {
        assertThat(answer).as(uid).isEqualTo("late: the kubelet cancelled the call");
      }
    });
    assertThat(answers.values()).as("the caller's own claim").contains("done");
  }

  @Test
  void quickClaimsAreAnsweredEvenWithNoBudgetLeft() {
    ClaimWorkers workers = new ClaimWorkers(Executors.newSingleThreadExecutor(), 2);
    CallBudget spent = CallBudget.after(Duration.ZERO);
    Map<String, String> answers = workers.run(claims(3), spent, c -> c.uid().equals("uid-1"), c -> "done " + c.uid(),
        c -> "late");
    assertThat(answers).containsExactly(Map.entry("uid-0", "late"), Map.entry("uid-1", "done uid-1"),
        Map.entry("uid-2", "late"));
  }
}
