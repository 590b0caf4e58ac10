package io.nodeatlas.agent.claims;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.RequestConfig;
import io.fabric8.kubernetes.client.RequestConfigBuilder;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import io.nodeatlas.discovery.model.Names;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Reads claims as {@code resource.k8s.io/v1} ResourceClaims: a GET with the credentials, TLS material
 * and request headers of the agent's fabric8 client, made on the calling thread where that client's
 * configuration allows ({@link BlockingClaimGet}) and through fabric8's HTTP client where it does not
 * ({@link Fabric8ClaimGet}: proxies, TLS without checks), with
 *
 * <ul>
 *   <li>a bounded answer: the bytes are counted as they arrive and the read stops past
 *       {@link Limits#maxBytes} (by default 3 MiB, the largest JSON body the API server decodes on a
 *       write: {@code MaxRequestBodyBytes} of k8s.io/apiserver, twice etcd's default 1.5 MiB request
 *       limit, so no stored claim is larger), and that claim fails alone: one hostile or broken answer
 *       never costs the process its heap;</li>
 *   <li>a time limit per try covering connect, headers and the whole body, bounded retries for what
 *       a retry can fix (no answer, a 5xx or 429), and every wait cut short by the kubelet call's
 *       {@link CallBudget};</li>
 *   <li>at most {@link Limits#concurrentReads} answers read at once across all calls, so the bytes
 *       held for answers stay under {@code concurrentReads × maxBytes} (24 MiB) however many claims
 *       the kubelet sends at once (32 concurrent claims of 1.4 MB ended a 96 MiB heap without it); a
 *       read waits for its turn within the call's budget;</li>
 *   <li>only the fields Prepare needs read from the answer ({@code metadata.uid}, the annotation
 *       {@code resource.kubernetes.io/pod-claim-name} and {@code status.allocation.devices.results}), with
 *       Jackson's streaming parser: no object model of the whole claim, and the rest of the answer
 *       (managed fields, other annotations, the spec) skipped without being decoded.</li>
 * </ul>
 */
public final class ApiClaimLookup implements ClaimLookup {

  /** Per-try time, tries and the answer's size bound. */
  public record Limits(Duration attemptTimeout, int attempts, Duration backoff, int maxBytes, int concurrentReads) {
    /**
     * 5 s a try and 2 tries: a claim costs at most ~10 s with a hung API server, and the call budget
     * ({@link CallBudget}) cuts the whole call well before the kubelet's 45 s. 8 reads at once: as many
     * as one call works on ({@link ClaimPreparer#CALL_PARALLELISM}).
     */
    public static final Limits DEFAULT = new Limits(Duration.ofSeconds(5), 2, Duration.ofMillis(200), 3 << 20,
        ClaimPreparer.CALL_PARALLELISM);

    public Limits {
      if (attempts < 1 || maxBytes < 1 || concurrentReads < 1 || attemptTimeout.isNegative() || attemptTimeout.isZero() || backoff.isNegative()) {
        throw new IllegalArgumentException("invalid limits " + attemptTimeout + " " + attempts + " " + backoff + " " + maxBytes);
      }
    }
  }

  /** How long a call without a budget of its own may take (tests and tools calling {@link #allocation(ClaimRef)}). */
  private static final Duration UNBUDGETED = Duration.ofSeconds(30);

  private final ClaimGet get;
  /** The API server's URL and where the credentials come from, for an authentication failure's message. */
  private final String server;
  private final String credentials;
  private final String apiBase;
  private final Limits limits;
  private final java.util.concurrent.Semaphore reads;
  /** Thread-safe and built once; its parsers read at most {@link Limits#maxBytes}, the string limit follows. */
  private final JsonFactory json;

  public ApiClaimLookup(KubernetesClient client) {
    this(client, Limits.DEFAULT);
  }

  public ApiClaimLookup(KubernetesClient client, Limits limits) {
    // The retries are ours (bounded by the call's budget), so fabric8's own are off for these requests.
    RequestConfig requests = new RequestConfigBuilder(client.getConfiguration().getRequestConfig())
        .withRequestRetryBackoffLimit(0).withRequestRetryBackoffInterval(0).build();
    HttpClient http = client.getHttpClient().newBuilder().tag(requests).build();
    long attempt = limits.attemptTimeout().toNanos();
    this.get = BlockingClaimGet.of(client.getConfiguration(), requests, new JdkHttpClientFactory(), http, attempt,
            limits.maxBytes())
        .orElseGet(() -> new Fabric8ClaimGet(http, attempt, limits.maxBytes()));
    String master = client.getMasterUrl().toString();
    this.server = master;
    Object described = client.getConfiguration().getAdditionalProperties().get(io.nodeatlas.agent.kubeconfig.KubeconfigAuth.CREDENTIALS);
    this.credentials = described instanceof String d ? d : "the client configuration";
    this.apiBase = (master.endsWith("/") ? master.substring(0, master.length() - 1) : master)
        + "/apis/resource.k8s.io/v1/namespaces/";
    this.limits = limits;
    this.reads = new java.util.concurrent.Semaphore(limits.concurrentReads(), true);
    this.json = JsonFactory.builder()
        .streamReadConstraints(StreamReadConstraints.builder().maxStringLength(limits.maxBytes()).maxNestingDepth(64).build())
        .build();
  }

  /** On the agent's own connection ({@link ConnectionClaimGet}); {@code credentials} names them in messages. */
  public ApiClaimLookup(io.nodeatlas.agent.api.ApiConnection api, String credentials, Limits limits) {
    this.get = new ConnectionClaimGet(api, limits.attemptTimeout().toNanos(), limits.maxBytes());
    this.server = api.base();
    this.credentials = credentials;
    this.apiBase = api.base() + "/apis/resource.k8s.io/v1/namespaces/";
    this.limits = limits;
    this.reads = new java.util.concurrent.Semaphore(limits.concurrentReads(), true);
    this.json = JsonFactory.builder()
        .streamReadConstraints(StreamReadConstraints.builder().maxStringLength(limits.maxBytes()).maxNestingDepth(64).build())
        .build();
  }

  @Override
  public List<AllocatedDevice> allocation(ClaimRef ref) throws ClaimLookupException {
    return allocation(ref, CallBudget.after(UNBUDGETED));
  }

  @Override
  public List<AllocatedDevice> allocation(ClaimRef ref, CallBudget budget) throws ClaimLookupException {
    return allocatedClaim(ref, budget).results();
  }

  @Override
  public AllocatedClaim allocatedClaim(ClaimRef ref, CallBudget budget) throws ClaimLookupException {
    String what = "ResourceClaim " + ref.namespace() + "/" + ref.name();
    // Checked again here (the kubelet path checks first): these go into a URL.
    if (!Names.isDnsLabel(ref.namespace()) || !Names.isDnsSubdomain(ref.name())) {
      throw new ClaimLookupException("cannot read " + what + ": namespace or name is not a Kubernetes name");
    }
    String url = apiBase + ref.namespace() + "/resourceclaims/" + ref.name();
    String last = null;
    for (int attempt = 1; attempt <= limits.attempts(); attempt++) {
      if (attempt > 1 && !pause(budget)) {
        break;
      }
      if (budget.over()) {
        break;
      }
      ClaimGet.Answer a;
      try {
        if (!reads.tryAcquire(budget.remainingNanos(), TimeUnit.NANOSECONDS)) {
          last = "other claims' reads took the call's time: " + budget.why();
          break;
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new ClaimLookupException("cannot read " + what + ": interrupted");
      }
      try {
        a = get.fetch(url, Math.min(limits.attemptTimeout().toNanos(), budget.remainingNanos()), budget);
      } finally {
        reads.release();
      }
      if (a.failure() == null && a.code() >= 200 && a.code() < 300) {
        return parse(ref, what, a.body());
      }
      if (a.failure() == null && a.code() == 404) {
        throw new ClaimLookupException(what + " does not exist");
      }
      last = a.failure() != null ? a.failure() : "HTTP " + a.code() + statusMessage(a.body());
      if (a.failure() == null && a.code() == 401) {
        // Which credentials of which server, so the operator knows what to renew.
        last += " (the API server " + server + " refused the credentials of " + credentials + ")";
      }
      if (!a.retryable()) {
        throw new ClaimLookupException("cannot read " + what + " from the API server: " + last);
      }
    }
    if (last == null) {
      throw new ClaimLookupException("cannot read " + what + " from the API server: " + budget.why());
    }
    throw new ClaimLookupException("cannot read " + what + " from the API server: " + last
        + (budget.over() ? "; " + budget.why() : " (" + limits.attempts() + " tries)"));
  }

  /** Waits the back-off between tries; false when the budget ends first. */
  private boolean pause(CallBudget budget) {
    long wait = Math.min(limits.backoff().toNanos(), budget.remainingNanos());
    try {
      budget.abandoned().get(wait, TimeUnit.NANOSECONDS);
      return false;
    } catch (TimeoutException e) {
      return !budget.over();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } catch (ExecutionException e) {
      return false;
    }
  }

  /** The chunks as one stream, without joining them into one array. */
  private static InputStream stream(List<ByteBuffer> chunks) {
    return new InputStream() {
      private int i;

      @Override
      public int read() {
        byte[] one = new byte[1];
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
      }

      @Override
      public int read(byte[] b, int off, int len) {
        while (i < chunks.size() && !chunks.get(i).hasRemaining()) {
          i++;
        }
        if (i == chunks.size()) {
          return -1;
        }
        ByteBuffer c = chunks.get(i);
        int n = Math.min(len, c.remaining());
        c.get(b, off, n);
        return n;
      }
    };
  }

  /** {@code message} of a {@code Status} answer, when there is one, cut to 200 characters. */
  private String statusMessage(List<ByteBuffer> body) {
    try (JsonParser p = json.createParser(stream(body))) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return "";
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        p.nextToken();
        if ("message".equals(field) && p.currentToken() == JsonToken.VALUE_STRING) {
          String m = p.getText().replaceAll("\\p{Cntrl}", "?");
          return ": " + (m.length() > 200 ? m.substring(0, 200) + "..." : m);
        }
        p.skipChildren();
      }
    } catch (IOException | RuntimeException e) {
      return "";
    }
    return "";
  }

  /**
   * What Prepare needs of a claim: its UID and our results, checked as the upstream kubelet plugin helper
   * does, and the pod's name for a template-generated claim (device metadata, KEP-5304).
   */
  private AllocatedClaim parse(ClaimRef ref, String what, List<ByteBuffer> body) throws ClaimLookupException {
    String[] meta = {null, ""};
    boolean allocated = false;
    List<AllocatedDevice> results = new ArrayList<>();
    try (JsonParser p = json.createParser(stream(body))) {
      expect(p.nextToken() == JsonToken.START_OBJECT, "the answer is not a JSON object");
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        JsonToken t = p.nextToken();
        if ("metadata".equals(field) && t == JsonToken.START_OBJECT) {
          readMetadata(p, meta);
        } else if ("status".equals(field) && t == JsonToken.START_OBJECT) {
          while (p.nextToken() == JsonToken.FIELD_NAME) {
            String s = p.currentName();
            JsonToken st = p.nextToken();
            if ("allocation".equals(s) && st != JsonToken.VALUE_NULL) {
              typed(p, JsonToken.START_OBJECT, "status.allocation");
              while (p.nextToken() == JsonToken.FIELD_NAME) {
                String a = p.currentName();
                JsonToken at = p.nextToken();
                if ("devices".equals(a) && at != JsonToken.VALUE_NULL) {
                  typed(p, JsonToken.START_OBJECT, "status.allocation.devices");
                  allocated = true;
                  readDevices(p, results, json);
                } else {
                  p.skipChildren();
                }
              }
            } else {
              p.skipChildren();
            }
          }
        } else {
          p.skipChildren();
        }
      }
    } catch (IOException | RuntimeException e) {
      throw new ClaimLookupException("cannot read " + what + " from the API server's answer: " + ClaimGet.describe(e));
    }
    String uid = meta[0];
    if (!ref.uid().equals(uid)) {
      throw new ClaimLookupException(what + " got replaced: the kubelet asked for UID " + ref.uid()
          + ", the API server has UID " + uid);
    }
    if (!allocated) {
      throw new ClaimLookupException(what + " is not allocated");
    }
    return new AllocatedClaim(results, meta[1]);
  }

  /**
   * {@code metadata}: {@code uid} into {@code out[0]} and the annotation
   * {@link AllocatedClaim#POD_CLAIM_NAME_ANNOTATION} into {@code out[1]}; the rest skipped.
   */
  private static void readMetadata(JsonParser p, String[] out) throws IOException {
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String f = p.currentName();
      JsonToken t = p.nextToken();
      if ("uid".equals(f) && t == JsonToken.VALUE_STRING) {
        out[0] = p.getText();
      } else if ("annotations".equals(f) && t == JsonToken.START_OBJECT) {
        while (p.nextToken() == JsonToken.FIELD_NAME) {
          String key = p.currentName();
          JsonToken v = p.nextToken();
          if (AllocatedClaim.POD_CLAIM_NAME_ANNOTATION.equals(key) && v == JsonToken.VALUE_STRING) {
            out[1] = p.getText();
          } else {
            p.skipChildren();
          }
        }
      } else {
        p.skipChildren();
      }
    }
  }

  /** One {@code DeviceAllocationConfiguration} with an opaque configuration: its driver, requests and parameters. */
  private record Opaque(String driver, List<String> requests, String parameters) {}

  /** Longest {@code opaque.parameters} passed on, as JSON text. */
  static final int MAX_PARAMETERS_CHARS = 64 * 1024;

  /**
   * {@code allocation.devices}: {@code results}, and the {@code config[]} entries with an opaque configuration
   * ({@code resource.k8s.io/v1} {@code DeviceAllocationConfiguration}: source, requests, opaque.driver,
   * opaque.parameters), attached to the results of their driver they apply to.
   */
  private static void readDevices(JsonParser p, List<AllocatedDevice> out, JsonFactory json) throws IOException {
    List<Opaque> configs = new ArrayList<>();
    int first = out.size();
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String f = p.currentName();
      JsonToken t = p.nextToken();
      if ("config".equals(f) && t != JsonToken.VALUE_NULL) {
        typed(p, JsonToken.START_ARRAY, "status.allocation.devices.config");
        while (p.nextToken() == JsonToken.START_OBJECT) {
          readConfig(p, json).ifPresent(configs::add);
        }
        expect(p.currentToken() == JsonToken.END_ARRAY, "allocation config is not an object");
      } else if ("results".equals(f) && t != JsonToken.VALUE_NULL) {
        // A results member of another type is a broken answer, not "nothing for this driver".
        typed(p, JsonToken.START_ARRAY, "status.allocation.devices.results");
        while (p.nextToken() == JsonToken.START_OBJECT) {
          out.add(readResult(p));
        }
        expect(p.currentToken() == JsonToken.END_ARRAY, "allocation result is not an object");
      } else {
        p.skipChildren();
      }
    }
    if (!configs.isEmpty()) {
      for (int i = first; i < out.size(); i++) {
        AllocatedDevice a = out.get(i);
        List<String> mine = configs.stream().filter(c -> c.driver().equals(a.driver())
            && (c.requests().isEmpty() || c.requests().contains(a.request()) || c.requests().contains(a.baseRequest())))
            .map(Opaque::parameters).toList();
        out.set(i, a.withConfigs(mine));
      }
    }
  }

  /** One config entry; empty when it has no opaque configuration. */
  private static java.util.Optional<Opaque> readConfig(JsonParser p, JsonFactory json) throws IOException {
    List<String> requests = new ArrayList<>();
    String driver = null;
    String parameters = null;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String f = p.currentName();
      JsonToken t = p.nextToken();
      if ("requests".equals(f) && t != JsonToken.VALUE_NULL) {
        typed(p, JsonToken.START_ARRAY, "config.requests");
        while (p.nextToken() != JsonToken.END_ARRAY) {
          requests.add(scalar(p, "config.requests"));
        }
      } else if ("opaque".equals(f) && t != JsonToken.VALUE_NULL) {
        typed(p, JsonToken.START_OBJECT, "config.opaque");
        while (p.nextToken() == JsonToken.FIELD_NAME) {
          String o = p.currentName();
          JsonToken ot = p.nextToken();
          if ("driver".equals(o)) {
            driver = scalar(p, "config.opaque.driver");
          } else if ("parameters".equals(o) && ot != JsonToken.VALUE_NULL) {
            java.io.StringWriter w = new java.io.StringWriter();
            try (com.fasterxml.jackson.core.JsonGenerator g = json.createGenerator(w)) {
              g.copyCurrentStructure(p);
            }
            parameters = w.toString();
            expect(parameters.length() <= MAX_PARAMETERS_CHARS, "config.opaque.parameters is longer than "
                + MAX_PARAMETERS_CHARS + " characters");
          } else {
            p.skipChildren();
          }
        }
      } else {
        p.skipChildren();
      }
    }
    return driver == null || parameters == null ? java.util.Optional.empty()
        : java.util.Optional.of(new Opaque(driver, List.copyOf(requests), parameters));
  }

  /**
   * One {@code DeviceRequestAllocationResult}; shareID and consumedCapacity (KEP-5075) are passed on as
   * text, {@code SharePlanner} checks them per claim.
   */
  private static AllocatedDevice readResult(JsonParser p) throws IOException {
    String request = "";
    String driver = "";
    String pool = "";
    String device = "";
    String shareId = "";
    boolean admin = false;
    Map<String, String> consumed = new TreeMap<>();
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String f = p.currentName();
      JsonToken t = p.nextToken();
      switch (f) {
        case "request" -> request = scalar(p, f);
        case "driver" -> driver = scalar(p, f);
        case "pool" -> pool = scalar(p, f);
        case "device" -> device = scalar(p, f);
        case "shareID" -> shareId = scalar(p, f);
        case "adminAccess" -> {
          if (t != JsonToken.VALUE_NULL) {
            expect(t == JsonToken.VALUE_TRUE || t == JsonToken.VALUE_FALSE, "adminAccess is " + kind(t) + ", not a boolean");
            admin = t == JsonToken.VALUE_TRUE;
          }
        }
        case "consumedCapacity" -> {
          // A map of quantities (KEP-5075); another type is a broken answer, not "nothing consumed".
          if (t != JsonToken.VALUE_NULL) {
            typed(p, JsonToken.START_OBJECT, "consumedCapacity");
            while (p.nextToken() == JsonToken.FIELD_NAME) {
              String name = p.currentName();
              p.nextToken();
              consumed.put(name, scalar(p, "consumedCapacity." + name));
            }
          }
        }
        default -> p.skipChildren();
      }
    }
    return new AllocatedDevice(request, driver, pool, device, admin, shareId, consumed);
  }

  /** A scalar member as text; null as empty; an object or array where text belongs fails the answer. */
  private static String scalar(JsonParser p, String field) throws IOException {
    JsonToken t = p.currentToken();
    if (t == JsonToken.VALUE_NULL) {
      return "";
    }
    if (!t.isScalarValue()) {
      // The message only when it is needed: every field of every result of every Prepare passes here.
      throw new IOException(field + " is not a scalar");
    }
    return p.getText();
  }

  /** Fails the answer when the member just read ({@code what}) is not of the JSON type {@code start}. */
  private static void typed(JsonParser p, JsonToken start, String what) throws IOException {
    if (p.currentToken() != start) {
      throw new IOException(what + " is " + kind(p.currentToken()) + ", not "
          + (start == JsonToken.START_ARRAY ? "an array" : "an object"));
    }
  }

  private static String kind(JsonToken t) {
    return switch (t) {
      case START_ARRAY -> "an array";
      case START_OBJECT -> "an object";
      case VALUE_STRING -> "a string";
      case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "a number";
      case VALUE_TRUE, VALUE_FALSE -> "a boolean";
      default -> String.valueOf(t);
    };
  }

  private static void expect(boolean ok, String why) throws IOException {
    if (!ok) {
      throw new IOException(why);
    }
  }
}
