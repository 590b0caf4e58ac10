package io.nodeatlas.discovery.testing;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;

/**
 * Runs a task repeatedly for the in-process benches (bench/inprocess.sh) and gives, after warm-up
 * runs, in microseconds per run: the median wall time, the median CPU time of the calling thread, and
 * the mean CPU time of the whole process (GC and JIT threads included): {@code "<wall> <thread> <process>"}.
 * On a machine shared with other work, CPU time is what a ratio against a C reader's CPU time can be
 * taken from; wall time is shown too.
 */
public final class CpuTimedRuns {

  /** A task that may throw. */
  @FunctionalInterface
  public interface Task {
    void run() throws Exception;
  }

  private CpuTimedRuns() {}

  public static String measure(int warmup, int runs, Task task) throws Exception {
    com.sun.management.OperatingSystemMXBean os =
        (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    for (int i = 0; i < warmup; i++) {
      task.run();
    }
    long[] wall = new long[runs];
    long[] cpu = new long[runs];
    // The process clock ticks in jiffies here (10 ms): summed over all runs, not read per run.
    long process0 = os.getProcessCpuTime();
    for (int i = 0; i < runs; i++) {
      long c0 = threads.getCurrentThreadCpuTime();
      long w0 = System.nanoTime();
      task.run();
      wall[i] = System.nanoTime() - w0;
      cpu[i] = threads.getCurrentThreadCpuTime() - c0;
    }
    long process = os.getProcessCpuTime() - process0;
    Arrays.sort(wall);
    Arrays.sort(cpu);
    return String.format(java.util.Locale.ROOT, "%.1f %.1f %.1f",
        wall[runs / 2] / 1000.0, cpu[runs / 2] / 1000.0, process / 1000.0 / runs);
  }
}
