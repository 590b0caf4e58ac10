package io.nodeatlas.agent.api;

import static io.nodeatlas.agent.api.ApiConnectionTest.send;
import static io.nodeatlas.agent.api.ApiConnectionTest.server;
import static io.nodeatlas.agent.api.ApiConnectionTest.url;
import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.nodeatlas.agent.slices.NodeSlices;
import io.nodeatlas.agent.testing.ApiObjects;
import io.nodeatlas.agent.testing.TestDevices;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The agent's ResourceSlice calls on its own client: against fabric8's CRUD mock, and a watch server of the test's own. */
@EnableKubernetesMockClient(https = false, crud = true)
class HttpSliceApiTest {

  KubernetesClient client;

  private static final Map<String, String> LABELS = Map.of(NodeSlices.LABEL_NODE, "node-a", NodeSlices.LABEL_DRIVER, "nodeatlas.io");

  private HttpSliceApi api(URI url, int maxBytes) {
    return new HttpSliceApi(new ApiConnection(url, null, null, () -> "test",
        new ApiConnection.Limits(Duration.ofSeconds(10), Duration.ofSeconds(20), maxBytes)));
  }

  @Test
  void listsCreatesUpdatesAndDeletesTheNodesSlices() throws Exception {
    ApiObjects.node(client, "node-a");
    HttpSliceApi api = api(URI.create(client.getConfiguration().getMasterUrl()), 3 << 20);
    String uid = api.nodeUid("node-a").orElseThrow();
    assertThat(uid).isNotEmpty().isEqualTo(client.nodes().withName("node-a").get().getMetadata().getUid());
    assertThat(api.nodeUid("node-b")).isEmpty();
    assertThat(api.list(LABELS).items()).isEmpty();

    List<ResourceSlice> built = new NodeSlices("nodeatlas.io", "node-a").build(TestDevices.gpus(4), false, 1,
        Optional.of(new OwnerReferenceBuilder().withApiVersion("v1").withKind("Node").withName("node-a").withUid(uid)
            .withController(true).build())).slices();
    ResourceSlice stored = api.create(built.get(0));
    assertThat(stored.getMetadata().getResourceVersion()).isNotEmpty();
    assertThat(stored.getSpec().getDevices()).isEqualTo(built.get(0).getSpec().getDevices());
    ResourceSlice byFabric8 = client.resources(ResourceSlice.class).withName(stored.getMetadata().getName()).get();
    assertThat(byFabric8.getSpec()).as("what fabric8 reads is what we wrote").isEqualTo(built.get(0).getSpec());

    SliceApi.Listed listed = api.list(LABELS);
    assertThat(listed.items()).extracting(s -> s.getMetadata().getName()).containsExactly(stored.getMetadata().getName());
    assertThat(api.list(Map.of(NodeSlices.LABEL_NODE, "node-b")).items()).isEmpty();

    stored.getSpec().getPool().setGeneration(2L);
    assertThat(api.update(stored).getSpec().getPool().getGeneration()).isEqualTo(2L);
    assertThat(client.resources(ResourceSlice.class).withName(stored.getMetadata().getName()).get().getSpec().getPool()
        .getGeneration()).isEqualTo(2L);

    api.delete(stored.getMetadata().getName());
    assertThat(api.list(LABELS).items()).isEmpty();
    api.delete(stored.getMetadata().getName()); // gone already: no failure
  }

  /** A watch server: answers lists with the next version of {@code lists}, and each watch request with the next script. */
  private static HttpServer watchServer(List<String> lists, List<List<String>> watches, List<String> watchedFrom,
      CountDownLatch held) throws Exception {
    java.util.concurrent.atomic.AtomicInteger list = new java.util.concurrent.atomic.AtomicInteger();
    java.util.concurrent.atomic.AtomicInteger watch = new java.util.concurrent.atomic.AtomicInteger();
    return server(null, ex -> {
      String q = ex.getRequestURI().getRawQuery();
      if (!q.contains("watch=true")) {
        String v = lists.get(Math.min(list.getAndIncrement(), lists.size() - 1));
        send(ex, 200, "{\"kind\":\"ResourceSliceList\",\"apiVersion\":\"resource.k8s.io/v1\",\"metadata\":{\"resourceVersion\":\""
            + v + "\"},\"items\":[]}");
        return;
      }
      watchedFrom.add(q.replaceAll(".*resourceVersion=([^&]*).*", "$1"));
      int i = watch.getAndIncrement();
      ex.getResponseHeaders().set("Content-Type", "application/json");
      ex.sendResponseHeaders(200, 0);
      try (OutputStream out = ex.getResponseBody()) {
        if (i < watches.size()) {
          for (String event : watches.get(i)) {
            out.write((event + "\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
          }
          return; // the server ends this request, as at its timeoutSeconds
        }
        held.await(60, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
  }

  private static String event(String type, String name, String version) {
    return "{\"type\":\"" + type + "\",\"object\":{\"kind\":\"ResourceSlice\",\"apiVersion\":\"resource.k8s.io/v1\","
        + "\"metadata\":{\"name\":\"" + name + "\",\"resourceVersion\":\"" + version + "\"}}}";
  }

  @Test
  void aWatchGoesOnFromTheLastVersionAndListsAgainWhenItsVersionIsGone() throws Exception {
    List<String> from = new CopyOnWriteArrayList<>();
    CountDownLatch held = new CountDownLatch(1);
    HttpServer s = watchServer(List.of("10", "20"), List.of(
        List.of("{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\","
            + "\"message\":\"too old resource version: 10 (15)\",\"reason\":\"Expired\",\"code\":410}}"),
        List.of(event("MODIFIED", "s1", "21"), event("DELETED", "s1", "22"),
            "{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"ResourceSlice\",\"apiVersion\":\"resource.k8s.io/v1\","
                + "\"metadata\":{\"resourceVersion\":\"30\"}}}")), from, held);
    BlockingQueue<String> heard = new LinkedBlockingQueue<>();
    try (SliceApi.Watch w = api(url(s), 1 << 20).watch(LABELS, listener(heard))) {
      assertThat(heard.poll(60, TimeUnit.SECONDS)).isEqualTo("relisted");
      assertThat(heard.poll(60, TimeUnit.SECONDS)).isEqualTo("deleted s1");
      for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60); from.size() < 3 && System.nanoTime() < end; ) {
        Thread.sleep(20);
      }
      assertThat(from).as("from the list, from the new list after 410, from the bookmark").containsExactly("10", "20", "30");
    } finally {
      held.countDown();
      s.stop(0);
    }
    assertThat(heard).as("closing is not a failure").isEmpty();
  }

  @Test
  void aWatchThatBringsNothingWithinTheRequestTimeIsOpenedAgainFromTheLastVersion() throws Exception {
    List<String> from = new CopyOnWriteArrayList<>();
    BlockingQueue<String> requests = new LinkedBlockingQueue<>();
    CountDownLatch held = new CountDownLatch(1);
    java.util.concurrent.atomic.AtomicInteger watch = new java.util.concurrent.atomic.AtomicInteger();
    HttpServer s = server(null, ex -> {
      String q = ex.getRequestURI().getRawQuery();
      if (!q.contains("watch=true")) {
        send(ex, 200, "{\"kind\":\"ResourceSliceList\",\"metadata\":{\"resourceVersion\":\"10\"},\"items\":[]}");
        return;
      }
      from.add(q.replaceAll(".*resourceVersion=([^&]*).*", "$1"));
      ex.getResponseHeaders().set("Content-Type", "application/json");
      ex.sendResponseHeaders(200, 0);
      try (OutputStream out = ex.getResponseBody()) {
        if (watch.getAndIncrement() == 0) {
          out.write((event("MODIFIED", "s1", "21") + "\n").getBytes(StandardCharsets.UTF_8));
          out.flush();
        }
        requests.add("watch " + from.get(from.size() - 1));
        held.await(60, TimeUnit.SECONDS); // then silent: no event, no bookmark, the request not ended
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    BlockingQueue<String> heard = new LinkedBlockingQueue<>();
    SliceApi api = new HttpSliceApi(new ApiConnection(url(s), null, null, () -> "test",
        new ApiConnection.Limits(Duration.ofSeconds(10), Duration.ofMillis(700), 1 << 20)));
    try (SliceApi.Watch w = api.watch(LABELS, listener(heard))) {
      assertThat(requests.poll(60, TimeUnit.SECONDS)).isEqualTo("watch 10");
      assertThat(requests.poll(60, TimeUnit.SECONDS)).as("a new request after the silent one's read time")
          .isEqualTo("watch 21");
      assertThat(heard).as("neither a failure nor a new list").isEmpty();
    } finally {
      held.countDown();
      s.stop(0);
    }
  }

  @Test
  void closingAWatchReturnsAtOnceAndNothingIsHeardAfter() throws Exception {
    CountDownLatch watching = new CountDownLatch(1);
    CountDownLatch closed = new CountDownLatch(1);
    CountDownLatch sent = new CountDownLatch(1);
    HttpServer s = server(null, ex -> {
      if (!ex.getRequestURI().getRawQuery().contains("watch=true")) {
        send(ex, 200, "{\"kind\":\"ResourceSliceList\",\"metadata\":{\"resourceVersion\":\"10\"},\"items\":[]}");
        return;
      }
      ex.getResponseHeaders().set("Content-Type", "application/json");
      ex.sendResponseHeaders(200, 0);
      try (OutputStream out = ex.getResponseBody()) {
        watching.countDown();
        closed.await(60, TimeUnit.SECONDS);
        out.write((event("DELETED", "s1", "22") + "\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
        sent.countDown();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    BlockingQueue<String> heard = new LinkedBlockingQueue<>();
    try {
      java.util.Set<Thread> before = watchThreads();
      SliceApi.Watch w = api(url(s), 1 << 20).watch(LABELS, listener(heard));
      java.util.Set<Thread> mine = watchThreads();
      mine.removeAll(before);
      assertThat(mine).hasSize(1);
      assertThat(watching.await(60, TimeUnit.SECONDS)).isTrue();
      long t0 = System.nanoTime();
      w.close();
      assertThat(Duration.ofNanos(System.nanoTime() - t0)).as("close does not wait for the request in flight")
          .isLessThan(Duration.ofSeconds(5));
      closed.countDown();
      assertThat(sent.await(60, TimeUnit.SECONDS)).isTrue();
      Thread t = mine.iterator().next();
      t.join(60_000);
      assertThat(t.isAlive()).as("the watch's thread ends with the event").isFalse();
      assertThat(heard).as("an event after close is not heard").isEmpty();
    } finally {
      closed.countDown();
      s.stop(0);
    }
  }

  @Test
  void aWatchEventLargerThanTheBoundEndsTheWatchWithAReason() throws Exception {
    List<String> from = new CopyOnWriteArrayList<>();
    CountDownLatch held = new CountDownLatch(1);
    String huge = "{\"type\":\"MODIFIED\",\"object\":{\"metadata\":{\"name\":\"s1\",\"annotations\":{\"x\":\""
        + "x".repeat(8192) + "\"}}}}";
    HttpServer s = watchServer(List.of("10"), List.of(List.of(huge)), from, held);
    BlockingQueue<String> heard = new LinkedBlockingQueue<>();
    try (SliceApi.Watch w = api(url(s), 4096).watch(LABELS, listener(heard))) {
      assertThat(heard.poll(60, TimeUnit.SECONDS)).startsWith("closed no answer from " + url(s))
          .endsWith("a watch event larger than 4096 bytes; refused");
    } finally {
      held.countDown();
      s.stop(0);
    }
  }

  @Test
  void aServerThatEndsEveryWatchAtOnceIsNotAskedInALoop() throws Exception {
    BlockingQueue<Long> requests = new LinkedBlockingQueue<>();
    List<String> from = new CopyOnWriteArrayList<>() {
      @Override
      public boolean add(String version) {
        requests.add(System.nanoTime());
        return super.add(version);
      }
    };
    CountDownLatch held = new CountDownLatch(1);
    HttpServer s = watchServer(List.of("10"), java.util.Collections.nCopies(50, List.of()), from, held);
    BlockingQueue<String> heard = new LinkedBlockingQueue<>();
    try (SliceApi.Watch w = api(url(s), 1 << 20).watch(LABELS, listener(heard))) {
      // Each of the first three watch requests, as it arrives: the pauses between them are 1 s, then 2 s.
      long[] at = new long[3];
      for (int i = 0; i < at.length; i++) {
        Long t = requests.poll(60, TimeUnit.SECONDS);
        assertThat(t).as("watch request %d within 60 s", i + 1).isNotNull();
        at[i] = t;
      }
      assertThat(TimeUnit.NANOSECONDS.toMillis(at[1] - at[0])).as("the first pause").isGreaterThanOrEqualTo(900);
      assertThat(TimeUnit.NANOSECONDS.toMillis(at[2] - at[1])).as("the second pause, doubled").isGreaterThanOrEqualTo(1900);
      assertThat(heard).isEmpty();
    } finally {
      held.countDown();
      s.stop(0);
    }
  }

  @Test
  void aWatchRefusedByTheServerEndsWithTheServersStatus() throws Exception {
    HttpServer s = server(null, ex -> {
      if (ex.getRequestURI().getRawQuery().contains("watch=true")) {
        send(ex, 403, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"reason\":\"Forbidden\","
            + "\"message\":\"resourceslices is forbidden: User cannot watch\",\"code\":403}");
      } else {
        send(ex, 200, "{\"kind\":\"ResourceSliceList\",\"apiVersion\":\"resource.k8s.io/v1\",\"metadata\":"
            + "{\"resourceVersion\":\"10\"},\"items\":[]}");
      }
    });
    BlockingQueue<String> heard = new LinkedBlockingQueue<>();
    try (SliceApi.Watch w = api(url(s), 1 << 20).watch(LABELS, listener(heard))) {
      assertThat(heard.poll(60, TimeUnit.SECONDS)).as("the server's answer, not a lost connection")
          .isEqualTo("closed HTTP 403 Forbidden: resourceslices is forbidden: User cannot watch");
    } finally {
      s.stop(0);
    }
  }

  private static java.util.Set<Thread> watchThreads() {
    java.util.Set<Thread> out = new java.util.HashSet<>();
    Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals("slice-watch")).forEach(out::add);
    return out;
  }

  private static SliceApi.Listener listener(BlockingQueue<String> heard) {
    return new SliceApi.Listener() {
      @Override
      public void deleted(String name) {
        heard.add("deleted " + name);
      }

      @Override
      public void relisted() {
        heard.add("relisted");
      }

      @Override
      public void closed(ApiException cause) {
        heard.add("closed " + cause.getMessage());
      }
    };
  }
}
